// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel matvec_q8_split threadgroup 32x1x1
// CHECK: kernel void matvec_q8_split(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @matvec_q8_split
// SPV: spirv.ExecutionMode @matvec_q8_split "LocalSize", 32, 1, 1
func.func @f(%w: memref<72x13xvector<4xi32>>, %s: memref<72xf32>, %g: memref<200xf32>, %u: memref<200xf32>, %y: memref<3x72xf32>) {
  stage.dispatch "matvec_q8_split" {
    stage.matvec weight(%w : memref<72x13xvector<4xi32>>) row_scale(%s : memref<72xf32>) input(%g : memref<200xf32>) up(%u : memref<200xf32>) out(%y : memref<3x72xf32>) {format = #stage.format<q8_2f>, activation = #stage.activation<silu_mul>, split_k = 3 : i64}
  }
  return
}
