// REQUIRES: compiler
// stage.head_rows: a workgroup per cluster (3), 32 threads (a power of two within
// [32, 128] for 4 groups a row). The gate is params word 2; with 8 params words the
// head top-p (word 7) also closes the cluster when the mass of the clusters with larger
// logits reaches it. That mass comes from the same pass over the cluster logits as
// their total (one exp each, one loop carrying both sums); then one uniform branch on
// (below the gate) or (top-p < 1 and mass above >= top-p * total).
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu | FileCheck %s

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
