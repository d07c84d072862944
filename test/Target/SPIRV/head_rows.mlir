// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// A thread per 16-byte group of a row, at least 32 (4 groups here).
// CHECK: // kernel head_rows threadgroup 32x1x1
// CHECK: kernel void head_rows(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @head_rows
// SPV: spirv.ExecutionMode @head_rows "LocalSize", 32, 1, 1
func.func @f(%x: memref<52xf32>, %rows: memref<6x4xvector<4xi32>>, %rs: memref<6xf32>, %lc: memref<3xf32>, %p: memref<4xi32>, %l: memref<6xf32>) {
  stage.dispatch "head_rows" {
    stage.head_rows input(%x : memref<52xf32>) rows(%rows : memref<6x4xvector<4xi32>>) row_scale(%rs : memref<6xf32>) cluster_logits(%lc : memref<3xf32>) params(%p : memref<4xi32>) out(%l : memref<6xf32>) {format = #stage.format<q8_2f>}
  }
  return
}
