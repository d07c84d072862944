// REQUIRES: compiler
// stage.cluster_logits: 7 clusters of a 300-wide row. 64 threads (about 8 columns a thread
// and row, ceil(300 / 8) rounded up to a power of two), 4 clusters an item (an f16
// mat-vec's rows), 2 workgroups for 2 items, in a uniform item loop. An item's rows are
// clamped to the last cluster (item 1 asks for rows 4..7), read side by side along the
// row with x loaded once a column for all four; one reduction round of the 4 partials
// (a 4 x 64 buffer, 8 barriers); thread r picks row r's total and stores it once, only
// for r < 4 and a row inside the 7.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@cluster_logits blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @cluster_logits({{.*}}) workgroup(%[[WG:.*]] : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[WGID:.*]] = gpu.block_id x
// CHECK: scf.for %[[ITEM:.*]] = %[[WGID]] to %c2{{.*}} step %c2{{[_0-9]*}} {
// CHECK: %[[FIRST:.*]] = arith.muli %[[ITEM]], %c4 : index
// CHECK: %[[R0:.*]] = arith.minui %{{.*}}, %c6 : index
// CHECK: %[[R1:.*]] = arith.minui %{{.*}}, %c6{{.*}} : index
// CHECK: %[[R2:.*]] = arith.minui %{{.*}}, %c6{{.*}} : index
// CHECK: %[[R3:.*]] = arith.minui %{{.*}}, %c6{{.*}} : index
// CHECK: scf.for %[[I:.*]] = %[[TID]] to %c300 step %c64 iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK-DAG: memref.load %arg0[%[[I]]] : memref<300xf32>
// CHECK-DAG: memref.load %arg1[%[[R0]], %[[I]]] : memref<7x300xf32>
// CHECK-DAG: memref.load %arg1[%[[R1]], %[[I]]] : memref<7x300xf32>
// CHECK-DAG: memref.load %arg1[%[[R2]], %[[I]]] : memref<7x300xf32>
// CHECK-DAG: memref.load %arg1[%[[R3]], %[[I]]] : memref<7x300xf32>
// CHECK-NOT: memref.load
// CHECK: scf.yield
// CHECK-COUNT-7: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[T3:.*]] = memref.load %[[WG]][%c192{{.*}}] : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[IS3:.*]] = arith.cmpi eq, %thread_id_x{{.*}}, %c3{{.*}} : index
// CHECK-NEXT: %[[PICK:.*]] = arith.select %[[IS3]], %[[T3]], %{{.*}} : f32
// CHECK: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[TID]] : index
// CHECK-DAG: %[[INSIDE:.*]] = arith.cmpi ult, %[[ROW]], %c7 : index
// CHECK-DAG: %[[MINE:.*]] = arith.cmpi ult, %[[TID]], %c4{{.*}} : index
// CHECK: %[[STORE:.*]] = arith.andi %[[MINE]], %[[INSIDE]] : i1
// CHECK-NEXT: scf.if %[[STORE]] {
// CHECK-NEXT: memref.store %[[PICK]], %arg2[%[[ROW]]] : memref<7xf32>
// CHECK-NOT: memref.store %{{.*}}, %arg2
// CHECK: gpu.return
func.func @f(%x: memref<300xf32>, %c: memref<7x300xf32>, %lc: memref<7xf32>) {
  stage.dispatch "cluster_logits" {
    stage.cluster_logits input(%x : memref<300xf32>) clusters(%c : memref<7x300xf32>) out(%lc : memref<7xf32>)
  }
  return
}
