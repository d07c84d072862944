// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel landmark_seal threadgroup 64x1x1
// CHECK: kernel void landmark_seal(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @landmark_seal
// SPV: spirv.ExecutionMode @landmark_seal "LocalSize", 64, 1, 1
func.func @f(%l: memref<1x3x24xf32>, %p: memref<4xi32>, %m: memref<1x3x3xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch "landmark_seal" {
    stage.landmark_seal landmarks(%l : memref<1x3x24xf32>) params(%p : memref<4xi32>) inverse(%m : memref<1x3x3xf32>) far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) {scale = 4.89898 : f32}
  }
  return
}
