// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel slerp threadgroup 256x1x1
// CHECK: kernel void slerp(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @slerp
// SPV: spirv.ExecutionMode @slerp "LocalSize", 256, 1, 1
func.func @f(%h: memref<64xf32>, %o: memref<64xf32>, %a: memref<64xf32>) {
  stage.dispatch "slerp" { stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32} }
  return
}
