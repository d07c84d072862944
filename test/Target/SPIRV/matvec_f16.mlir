// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel matvec_f16 threadgroup 32x1x1
// CHECK: kernel void matvec_f16(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @matvec_f16
// SPV: spirv.ExecutionMode @matvec_f16 "LocalSize", 32, 1, 1
func.func @f(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch "matvec_f16" {
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}
