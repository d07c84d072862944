// REQUIRES: compiler
// convert-stage-to-gpu{matvec-subgroup-items=true}: a subgroup computes each
// mat-vec item. The grid is sized for 32-lane subgroups (4 items a 128-thread
// workgroup); the kernel reads the subgroup id, count and size at run time,
// walks items subgroup * count + id, ..., its lanes stride the item's groups
// by the subgroup size, and sums with subgroup arithmetic alone: no barrier,
// no workgroup memory. Without subgroup arithmetic the option is ignored.
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu="matvec-subgroup-items=true" | FileCheck %s

// 72 rows of 4: 18 items, 5 workgroups of 128 threads.
// CHECK-LABEL: func.func @plain
// CHECK: gpu.launch_func @kiln_kernels::@matvec_f16 blocks in (%c5, %c1, %c1) threads in (%c128, %c1, %c1)
// CHECK: gpu.func @matvec_f16(%{{[^)]*}}) kernel
// CHECK-NOT: gpu.barrier
// CHECK: gpu.num_subgroups
// CHECK: gpu.subgroup_id
// CHECK: scf.for
// CHECK: gpu.lane_id
// CHECK: gpu.subgroup_size
// CHECK-COUNT-4: memref.load %arg0[%{{[0-9]+}}, %{{[0-9]+}}] : memref<72x25xvector<4xi32>>
// CHECK-COUNT-4: gpu.subgroup_reduce add
// CHECK-NOT: gpu.barrier
// Lane r stores rows r, r + S, ... of the item's 4 (more rows than lanes is allowed).
// The lanes: the subgroup size, or the whole workgroup if it is smaller.
// CHECK: %[[SIZE:.*]] = gpu.subgroup_size
// CHECK: %[[LANES:.*]] = arith.minui %[[SIZE]], %c128
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: scf.for %{{.*}} = %[[LANE]] to %c4{{.*}} step %[[LANES]]
// CHECK: memref.store %{{.*}}, %arg2[%{{.*}}] : memref<72xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
module attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformArithmetic], []>, #spirv.resource_limits<>>} {
func.func @plain(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch "matvec_f16" {
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}
}

// -----

// A row epilogue: gate and up share the pass (8 loads, 8 subgroup sums), then
// lane r alone computes silu(g)·u for row r. The norm's mean square is
// reduced once a workgroup, before the item loop: the only barriers.
// CHECK-LABEL: func.func @row_epilogue
// CHECK: gpu.launch_func @kiln_kernels::@gate__up__act blocks in (%c6, %{{.*}}, %{{.*}}) threads in (%c128, %{{.*}}, %{{.*}})
// CHECK: gpu.func @gate__up__act(
// CHECK: gpu.barrier
// CHECK: math.rsqrt
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_id
// CHECK: scf.for
// CHECK-COUNT-8: memref.load {{.*}} : memref<96x8xvector<4xi32>>
// CHECK-COUNT-8: gpu.subgroup_reduce add
// CHECK-NOT: gpu.barrier
// CHECK: gpu.lane_id
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: math.exp
// CHECK: memref.store {{.*}} : memref<96xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
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

// -----

// No subgroup arithmetic in the target: workgroup items as before (a
// workgroup per item, 18 of 32 threads, the reduction through workgroup memory).
// CHECK-LABEL: func.func @fallback
// CHECK: gpu.launch_func @kiln_kernels::@matvec_f16 blocks in (%c18, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK: gpu.func @matvec_f16({{.*}}) workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>) kernel
// CHECK-NOT: gpu.subgroup_id
// CHECK: gpu.barrier
func.func @fallback(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch "matvec_f16" {
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}
