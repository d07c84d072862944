// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=msl | FileCheck %s
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV

// CHECK: // kernel key_scores threadgroup 256x1x1
// CHECK: kernel void key_scores(
// SPV: spirv.module @__spv__{{.*}} Logical GLSL450
// SPV: spirv.EntryPoint "GLCompute" @key_scores
// SPV: spirv.ExecutionMode @key_scores "LocalSize", 256, 1, 1
func.func @f(%qr: memref<48xf32>, %qp: memref<48xf32>, %kr: memref<1x8x16xf32>, %sk: memref<1x2x16xf32>, %p: memref<4xi32>, %s: memref<3x10xf32>) {
  stage.dispatch "key_scores" {
    stage.key_scores q(%qr : memref<48xf32>) sink_q(%qp : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>) sink_k(%sk : memref<1x2x16xf32>) params(%p : memref<4xi32>) scores(%s : memref<3x10xf32>) {group_windows = array<i64: 5>, scale = 0.25 : f32}
  }
  return
}
