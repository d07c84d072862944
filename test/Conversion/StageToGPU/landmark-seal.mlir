// REQUIRES: compiler
// stage.landmark_seal with 2 KV heads, 5 landmarks of 12 dims and stride 4: a 64-thread
// workgroup per KV head, K and its inverse in two 5 x 5 workgroup buffers beside the
// 5-float column of factors. The landmark count (meta word 3 kh) is read once; the count
// n = min(last / 4 + 1, 5), 0 when already sealed. K_ab = exp(scale l_a . l_b) (the only
// exp) beside the identity; the ridge 1e-6 max K_aa on the diagonal; then per column a
// pivot search (first largest |a|, strict ogt), the row swap, one divide, the row
// scale, the factors and the elimination (rows other than the column), with 5
// barriers a column, 3 before and 1 after. M goes to inverse[kh], the far sums (5 x 14)
// are zeroed unless sealed, and lane 0 of an unsealed head stores the folded count 0
// and then the landmark count.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@landmark_seal blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @landmark_seal({{.*}}) workgroup(%[[A:.*]] : memref<25xf32, #gpu.address_space<workgroup>>, %[[INV:.*]] : memref<25xf32, #gpu.address_space<workgroup>>, %[[F:.*]] : memref<5xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: %[[SCALE:.*]] = arith.constant 2.886750e-01 : f32
// CHECK: %[[KV:.*]] = gpu.block_id x
// CHECK: %[[COUNTW:.*]] = arith.muli %[[KV]], %c3 : index
// CHECK: %[[RAW:.*]] = memref.load %arg4[%[[COUNTW]]] : memref<6xi32>
// CHECK-NEXT: %[[OLD:.*]] = arith.index_castui %[[RAW]] : i32 to index
// CHECK: %[[SEALED:.*]] = arith.cmpi ne, %[[OLD]], %c0 : index
// CHECK-NOT: memref.load %arg4
// CHECK: %[[RAWLAST:.*]] = memref.load %arg1[%c1] : memref<4xi32>
// CHECK-NEXT: %[[LAST:.*]] = arith.index_castui %[[RAWLAST]] : i32 to index
// CHECK: %[[Q:.*]] = arith.divui %[[LAST]], %c4 : index
// CHECK: %[[Q1:.*]] = arith.addi %[[Q]], %c1{{.*}} : index
// CHECK: %[[WANTED:.*]] = arith.minui %[[Q1]], %c5 : index
// CHECK: %[[N:.*]] = arith.select %[[SEALED]], %c0{{.*}}, %[[WANTED]] : index
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[NN:.*]] = arith.muli %[[N]], %[[N]] : index
// CHECK: scf.for %[[I:.*]] = %thread_id_x to %[[NN]] step %c64 {
// CHECK-NEXT: %[[R:.*]] = arith.divui %[[I]], %[[N]] : index
// CHECK-NEXT: %[[C:.*]] = arith.remui %[[I]], %[[N]] : index
// CHECK: %[[DOT:.*]] = scf.for %[[D:.*]] = %c0{{.*}} to %c12 step %c1{{.*}} iter_args({{.*}}) -> (f32) {
// CHECK-DAG: memref.load %arg0[%[[KV]], %[[R]], %[[D]]] : memref<2x5x12xf32>
// CHECK-DAG: memref.load %arg0[%[[KV]], %[[C]], %[[D]]] : memref<2x5x12xf32>
// CHECK: scf.yield
// CHECK-DAG: %[[RC:.*]] = arith.addi %{{.*}}, %[[C]] : index
// CHECK-DAG: %[[SP:.*]] = arith.mulf %[[SCALE]], %[[DOT]] : f32
// CHECK-DAG: %[[K:.*]] = math.exp %[[SP]] : f32
// CHECK: memref.store %[[K]], %[[A]][%[[RC]]]
// CHECK-NOT: math.exp
// CHECK: %[[DIAG:.*]] = arith.cmpi eq, %[[R]], %[[C]] : index
// CHECK-NEXT: %[[ID:.*]] = arith.select %[[DIAG]], %[[ONE]], %[[ZERO]] : f32
// CHECK: memref.store %[[ID]], %[[INV]][%{{.*}}]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: arith.maxnumf
// CHECK: %[[RIDGEK:.*]] = arith.constant 9.99999997E-7 : f32
// CHECK-NEXT: %[[RIDGE:.*]] = arith.mulf %{{.*}}, %[[RIDGEK]] : f32
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for
// CHECK: arith.addf %{{.*}}, %[[RIDGE]] : f32
// CHECK: gpu.barrier
// CHECK-NOT: math.exp
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %[[COL:.*]] = %c0{{.*}} to %[[N]] step %c1{{.*}} {
// CHECK: %[[NEXTROW:.*]] = arith.addi %[[COL]], %c1{{.*}} : index
// CHECK: scf.for %[[ROW:.*]] = %[[NEXTROW]] to %[[N]] step %c1{{.*}} iter_args(%[[BEST:.*]] = %[[COL]], %[[MAG:.*]] = %{{.*}}) -> (index, f32) {
// CHECK: %[[ABS:.*]] = math.absf
// CHECK-NEXT: %[[BETTER:.*]] = arith.cmpf ogt, %[[ABS]], %[[MAG]] : f32
// CHECK-NEXT: arith.select %[[BETTER]], %[[ROW]], %[[BEST]] : index
// CHECK: %[[GUARD:.*]] = arith.cmpi ult, %[[NEXTROW]], %[[N]] : index
// CHECK-NEXT: %[[PIVOT:.*]] = arith.select %[[GUARD]], %{{.*}}, %[[COL]] : index
// CHECK: scf.for
// CHECK: arith.muli %[[PIVOT]], %c5{{.*}} : index
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: arith.divf %[[ONE]], %{{.*}} : f32
// CHECK-NOT: arith.divf
// CHECK-COUNT-3: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[ELIM:.*]] = arith.cmpi ne, %{{.*}}, %[[COL]] : index
// CHECK-NEXT: scf.if %[[ELIM]] {
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: }
// CHECK-NOT: math.exp
// CHECK: %[[NN2:.*]] = arith.muli %[[N]], %[[N]] : index
// CHECK: scf.for %[[J:.*]] = %thread_id_x{{.*}} to %[[NN2]] step %c64{{.*}} {
// CHECK-NEXT: %[[R2:.*]] = arith.divui %[[J]], %[[N]] : index
// CHECK-NEXT: %[[C2:.*]] = arith.remui %[[J]], %[[N]] : index
// CHECK: %[[M:.*]] = memref.load %[[INV]][%{{.*}}]
// CHECK-NEXT: memref.store %[[M]], %arg2[%[[KV]], %[[R2]], %[[C2]]] : memref<2x5x5xf32>
// CHECK: %[[ZEROS:.*]] = arith.select %[[SEALED]], %c0{{.*}}, %c70 : index
// CHECK: scf.for %[[Z:.*]] = %thread_id_x{{.*}} to %[[ZEROS]] step %c64{{.*}} {
// CHECK: memref.store %[[ZERO]], %arg3[%[[KV]], %{{.*}}, %{{.*}}] : memref<2x5x14xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK-DAG: %[[UNSEALED:.*]] = arith.xori %[[SEALED]], %true : i1
// CHECK-DAG: %[[LANE0:.*]] = arith.cmpi eq, %thread_id_x{{.*}}, %c0{{.*}} : index
// CHECK: %[[WRITE:.*]] = arith.andi %[[LANE0]], %[[UNSEALED]] : i1
// CHECK-NEXT: scf.if %[[WRITE]] {
// CHECK: %[[FOLDEDW:.*]] = arith.addi %[[COUNTW]], %c2 : index
// CHECK: memref.store %{{.*}}, %arg4[%[[FOLDEDW]]] : memref<6xi32>
// CHECK-NEXT: %[[COUNT:.*]] = arith.index_castui %[[N]] : index to i32
// CHECK-NEXT: memref.store %[[COUNT]], %arg4[%[[COUNTW]]] : memref<6xi32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @f(%l: memref<2x5x12xf32>, %p: memref<4xi32>, %m: memref<2x5x5xf32>, %s: memref<2x5x14xf32>, %meta: memref<6xi32>) {
  stage.dispatch "landmark_seal" {
    stage.landmark_seal landmarks(%l : memref<2x5x12xf32>) params(%p : memref<4xi32>) inverse(%m : memref<2x5x5xf32>) far_sums(%s : memref<2x5x14xf32>) far_meta(%meta : memref<6xi32>) {scale = 0.288675 : f32, stride = 4 : i64}
  }
  return
}
