// REQUIRES: compiler
// stage.head_rows: a workgroup per cluster (3), 32 threads (a power of two within
// [32, 128] for 4 groups a row). The gate is params word 2; with 8 params words the
// head top-p (word 7) also closes the cluster when the mass of the clusters with larger
// logits reaches it. That mass comes from the same pass over the cluster logits as
// their total (one exp each, one loop carrying both sums); then one uniform branch on
// (below the gate) or (top-p < 1 and mass above >= top-p * total).
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu | FileCheck %s
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu="head-rows-subgroups=false" | FileCheck %s --check-prefix=WG

// CHECK-LABEL: func.func @gate_only
// CHECK: gpu.launch_func @kiln_kernels::@head_rows blocks in (%c3, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK: gpu.func @head_rows(%{{.*}}, %[[P:arg[0-9]+]]: memref<4xi32>, %{{.*}})
// CHECK: scf.for {{.*}} -> (f32) {
// CHECK: %[[GATE:.*]] = memref.load %[[P]][%c2{{.*}}] : memref<4xi32>
// CHECK-NOT: memref.load %[[P]]
// CHECK: scf.if
// CHECK: gpu.return
func.func @gate_only(%x: memref<52xf32>, %rows: memref<6x4xvector<4xi32>>, %rs: memref<6xf32>, %lc: memref<3xf32>, %p: memref<4xi32>, %l: memref<6xf32>) {
  stage.dispatch "head_rows" {
    stage.head_rows input(%x : memref<52xf32>) rows(%rows : memref<6x4xvector<4xi32>>) row_scale(%rs : memref<6xf32>) cluster_logits(%lc : memref<3xf32>) params(%p : memref<4xi32>) out(%l : memref<6xf32>) {format = #stage.format<q8_2f>}
  }
  return
}

// -----

// CHECK-LABEL: func.func @with_top_p
// CHECK: gpu.func @head_rows(%{{.*}}, %[[P:arg[0-9]+]]: memref<8xi32>, %{{.*}})
// CHECK: scf.for {{.*}} -> (f32, f32) {
// CHECK: math.exp
// CHECK: arith.cmpf ogt
// CHECK-NOT: math.exp
// CHECK: memref.load %[[P]][%c2{{.*}}] : memref<8xi32>
// CHECK: %[[CLOSED:.*]] = arith.cmpf olt
// CHECK: %[[TOPP:.*]] = memref.load %[[P]][%c7] : memref<8xi32>
// CHECK: %[[REACHED:.*]] = arith.cmpf oge
// CHECK: %[[CUTS:.*]] = arith.andi %{{.*}}, %[[REACHED]] : i1
// CHECK: %[[SHUT:.*]] = arith.ori %[[CLOSED]], %[[CUTS]] : i1
// CHECK: scf.if %[[SHUT]] {
func.func @with_top_p(%x: memref<52xf32>, %rows: memref<6x4xvector<4xi32>>, %rs: memref<6xf32>, %lc: memref<3xf32>, %p: memref<8xi32>, %l: memref<6xf32>) {
  stage.dispatch "head_rows" {
    stage.head_rows input(%x : memref<52xf32>) rows(%rows : memref<6x4xvector<4xi32>>) row_scale(%rs : memref<6xf32>) cluster_logits(%lc : memref<3xf32>) params(%p : memref<8xi32>) out(%l : memref<6xf32>) {format = #stage.format<q8_2f>}
  }
  return
}

// -----

// With subgroup arithmetic in the target env, an open cluster's rows go to
// subgroups (head-rows-subgroups, the default): 128-row clusters at ~8 rows a
// 32-lane subgroup want 512 threads, capped at the reduce width (256 here);
// subgroup s walks blocks s, s + S, ... of 2 rows (64 blocks), its lanes
// stride each row's groups by the subgroup size, one subgroup reduction a row
// and no barrier inside the walk; lane 0 parks each value in workgroup memory
// (128 floats), then one barrier and the cluster's log-softmax from there.
// CHECK-LABEL: func.func @by_subgroups
// CHECK: gpu.launch_func @kiln_kernels::@head_rows blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @head_rows({{.*}}) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %[[STAGED:.*]] : memref<128xf32, #gpu.address_space<workgroup>>)
// CHECK: } else {
// CHECK: %[[SIZE:.*]] = gpu.subgroup_size
// CHECK: %[[LANES:.*]] = arith.minui %[[SIZE]], %c256
// CHECK: %[[SG:.*]] = gpu.subgroup_id
// CHECK: %[[COUNT:.*]] = gpu.num_subgroups
// CHECK: scf.for %{{.*}} = %[[SG]] to %c64 step %[[COUNT]] {
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %arg1[%{{.*}}, %{{.*}}] : memref<256x4xvector<4xi32>>
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-2: gpu.subgroup_reduce add
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[STAGED]][%{{.*}}] : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.store %{{.*}}, %arg4
// CHECK: gpu.barrier
// CHECK: memref.load %[[STAGED]]
// CHECK: math.log
// CHECK: memref.load %[[STAGED]]
// CHECK: memref.store %{{.*}}, %arg4[%{{.*}}] : memref<256xf32>
// CHECK: gpu.return
// The workgroup form (head-rows-subgroups=false): 32 threads (4 groups a row), no
// subgroup size read, the values stored to the output before the log-softmax.
// WG-LABEL: func.func @by_subgroups
// WG: threads in (%c32, %c1, %c1)
// WG: gpu.func @head_rows(
// WG-NOT: gpu.subgroup_size
// WG: memref.store %{{.*}}, %arg4
// WG: math.log
// WG: gpu.return
module attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformArithmetic], []>, #spirv.resource_limits<>>} {
func.func @by_subgroups(%x: memref<32xf32>, %rows: memref<256x4xvector<4xi32>>, %lc: memref<2xf32>, %p: memref<4xi32>, %l: memref<256xf32>) {
  stage.dispatch "head_rows" {
    stage.head_rows input(%x : memref<32xf32>) rows(%rows : memref<256x4xvector<4xi32>>) cluster_logits(%lc : memref<2xf32>) params(%p : memref<4xi32>) out(%l : memref<256xf32>) {format = #stage.format<f16>}
  }
  return
}
}
