// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel gdn_step threadgroup 256x1x1
// CHECK: kernel void gdn_step(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @gdn_step
// SPV: spirv.ExecutionMode @gdn_step "LocalSize", 256, 1, 1
func.func @f(%cq: memref<84xf32>, %z: memref<60xf32>, %a: memref<3xf32>, %b: memref<3xf32>, %al: memref<3xf32>, %dt: memref<3xf32>, %n: memref<20xf32>, %s: memref<3x12x20xf32>, %o: memref<60xf32>) {
  stage.dispatch "gdn_step" {
    stage.gdn_step qkv(%cq : memref<84xf32>) z(%z : memref<60xf32>) a(%a : memref<3xf32>) b(%b : memref<3xf32>) a_log(%al : memref<3xf32>) dt_bias(%dt : memref<3xf32>) norm(%n : memref<20xf32>) state(%s : memref<3x12x20xf32>) out(%o : memref<60xf32>) {num_k_heads = 1 : i64, eps = 1.0e-06 : f32}
  }
  return
}
