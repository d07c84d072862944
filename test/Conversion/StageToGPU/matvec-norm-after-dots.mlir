// REQUIRES: compiler
// convert-stage-to-gpu{matvec-norm-after-dots=true}: a normed mat-vec sums
// its input's squares beside its dots (one more f32 carried by the group loop,
// once for gate and up, which share the norm), adds it across the workgroup
// with the row partials (9 sums, one reduction), and scales the row totals by
// 1/rms. No mean-square pass before the weight loads: the workgroup's first
// barrier is the closing reduction's. The default reduces the mean square
// first.
// RUN: kiln-opt %s --convert-stage-to-gpu="matvec-norm-after-dots=true" | FileCheck %s --check-prefix=AFTER
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s --check-prefix=BEFORE

// AFTER: gpu.func @gate__up__act(
// AFTER-NOT: gpu.barrier
// AFTER: scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, f32)
// AFTER-COUNT-8: memref.load {{.*}} : memref<96x8xvector<4xi32>>
// AFTER-NOT: gpu.barrier
// AFTER-COUNT-9: gpu.subgroup_reduce add
// AFTER: gpu.barrier
// AFTER: math.rsqrt
// AFTER: math.exp
// AFTER: gpu.return
// BEFORE: gpu.func @gate__up__act(
// BEFORE: gpu.barrier
// BEFORE: math.rsqrt
// BEFORE: scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// BEFORE-COUNT-8: gpu.subgroup_reduce add
// BEFORE-NOT: math.rsqrt
// BEFORE: gpu.return
module attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformArithmetic], []>, #spirv.resource_limits<>>} {
func.func @row_epilogue(%x: memref<64xf32>, %n: memref<64xf32>, %m1: memref<96x8xvector<4xi32>>, %g: memref<96xf32>,
                        %m2: memref<96x8xvector<4xi32>>, %u: memref<96xf32>, %z: memref<96xf32>) {
  stage.dispatch "gate__up__act" attributes {fusion = "row_epilogue"} {
    stage.matvec weight(%m1 : memref<96x8xvector<4xi32>>) input(%x : memref<64xf32>) norm(%n : memref<64xf32>) out(%g : memref<96xf32>) {format = #stage.format<f16>, norm_eps = 1.0e-06 : f32}
    stage.matvec weight(%m2 : memref<96x8xvector<4xi32>>) input(%x : memref<64xf32>) norm(%n : memref<64xf32>) out(%u : memref<96xf32>) {format = #stage.format<f16>, norm_eps = 1.0e-06 : f32}
    stage.silu_mul ins(%g, %u : memref<96xf32>, memref<96xf32>) out(%z : memref<96xf32>)
  }
  return
}
}
