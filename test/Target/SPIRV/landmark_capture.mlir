// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel landmark_capture threadgroup 64x1x1
// CHECK: kernel void landmark_capture(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @landmark_capture
// SPV: spirv.ExecutionMode @landmark_capture "LocalSize", 64, 1, 1
func.func @f(%q: memref<72xf32>, %p: memref<4xi32>, %meta: memref<3xi32>, %l: memref<1x3x24xf32>) {
  stage.dispatch "landmark_capture" {
    stage.landmark_capture q(%q : memref<72xf32>) params(%p : memref<4xi32>) far_meta(%meta : memref<3xi32>) landmarks(%l : memref<1x3x24xf32>)
  }
  return
}
