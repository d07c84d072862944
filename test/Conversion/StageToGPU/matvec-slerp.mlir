// REQUIRES: compiler
// convert-stage-to-gpu: mat-vecs that take Dory's slerp (gate and up, one
// row epilogue) reduce the five sums of h, o and alpha in one workgroup
// reduction, once for both (they share the slerp), form the two factors
// (three rsqrt: |h|, |o|, |y|), and the one with hidden_out writes the new h
// in the workgroup of item 0, before the dot loop. The plain kernel has none
// of it.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @gate__up__act(
// CHECK-COUNT-5: gpu.subgroup_reduce add
// CHECK-NOT: gpu.subgroup_reduce
// CHECK-COUNT-3: math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: scf.if
// CHECK: memref.store {{.*}} : memref<64xf32>
// CHECK: scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK-NOT: math.rsqrt
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @plain(
// CHECK-NOT: math.rsqrt
// CHECK: gpu.return
module attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformArithmetic], []>, #spirv.resource_limits<>>} {
func.func @row_epilogue(%h: memref<64xf32>, %o: memref<64xf32>, %a: memref<64xf32>, %next: memref<64xf32>,
                        %m1: memref<96x8xvector<4xi32>>, %g: memref<96xf32>,
                        %m2: memref<96x8xvector<4xi32>>, %u: memref<96xf32>, %z: memref<96xf32>) {
  stage.dispatch "gate__up__act" attributes {fusion = "row_epilogue"} {
    stage.matvec weight(%m1 : memref<96x8xvector<4xi32>>) input(%h : memref<64xf32>) slerp(%o, %a : memref<64xf32>, memref<64xf32>) out(%g : memref<96xf32>) hidden_out(%next : memref<64xf32>) {format = #stage.format<f16>, slerp_eps = 1.0e-06 : f32}
    stage.matvec weight(%m2 : memref<96x8xvector<4xi32>>) input(%h : memref<64xf32>) slerp(%o, %a : memref<64xf32>, memref<64xf32>) out(%u : memref<96xf32>) {format = #stage.format<f16>, slerp_eps = 1.0e-06 : f32}
    stage.silu_mul ins(%g, %u : memref<96xf32>, memref<96xf32>) out(%z : memref<96xf32>)
  }
  stage.dispatch "plain" {
    stage.matvec weight(%m1 : memref<96x8xvector<4xi32>>) input(%h : memref<64xf32>) out(%g : memref<96xf32>) {format = #stage.format<f16>}
  }
  return
}
}
