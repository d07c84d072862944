// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel dory_mix threadgroup 256x1x1
// CHECK: kernel void dory_mix(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @dory_mix
// SPV: spirv.ExecutionMode @dory_mix "LocalSize", 256, 1, 1
func.func @f(%h: memref<64xf32>, %i: memref<64xf32>, %s: memref<64xf32>) {
  stage.dispatch "dory_mix" { stage.dory_mix hidden(%h : memref<64xf32>) entry(%i : memref<64xf32>) state(%s : memref<64xf32>) {mode = 1 : i64, eps = 1.0e-06 : f32} }
  return
}
