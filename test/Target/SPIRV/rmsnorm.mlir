// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel rmsnorm threadgroup 256x1x1
// CHECK: kernel void rmsnorm(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @rmsnorm
// SPV: spirv.ExecutionMode @rmsnorm "LocalSize", 256, 1, 1
func.func @f(%h: memref<200xf32>, %p: memref<3x200xf32>, %w: memref<200xf32>, %o: memref<200xf32>, %f: memref<200xf32>) {
  stage.dispatch "rmsnorm" {
    stage.rmsnorm residual(%h : memref<200xf32>) partials(%p : memref<3x200xf32>) weight(%w : memref<200xf32>) outs(%o : memref<200xf32>) folds(%f : memref<200xf32>) {eps = 1.0e-06 : f32, zero_centered}
  }
  return
}
