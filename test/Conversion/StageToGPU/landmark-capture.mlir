// REQUIRES: compiler
// stage.landmark_capture with 2 KV heads of 40 dims, 5 landmarks, 6 query heads (a group
// of 3), stride 4 and the position in params word 3: a thread per (KV head, dim), 80
// threads in two 64-thread workgroups, those past 80 masked; no workgroup memory and no
// barrier. A thread reads the position once and its head's landmark count (meta word
// 3 kh); it copies q[kh * 120 + d] (the group's first query head) into landmark
// pos / 4 only when unsealed, on the stride and below 5: one load, one store.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@landmark_capture blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @landmark_capture(%arg0: memref<240xf32>, %arg1: memref<4xi32>, %arg2: memref<6xi32>, %arg3: memref<2x5x40xf32>) kernel attributes
// CHECK-NOT: gpu.barrier
// CHECK: %[[T:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[T]], %c80 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: %[[KV:.*]] = arith.divui %[[T]], %c40 : index
// CHECK: %[[D:.*]] = arith.remui %[[T]], %c40{{.*}} : index
// CHECK: %[[RAWPOS:.*]] = memref.load %arg1[%c3] : memref<4xi32>
// CHECK-NEXT: %[[POS:.*]] = arith.index_castui %[[RAWPOS]] : i32 to index
// CHECK-NOT: memref.load %arg1
// CHECK: %[[A:.*]] = arith.divui %[[POS]], %c4 : index
// CHECK: %[[COUNTW:.*]] = arith.muli %[[KV]], %c3{{.*}} : index
// CHECK-NEXT: %[[RAW:.*]] = memref.load %arg2[%[[COUNTW]]] : memref<6xi32>
// CHECK-NEXT: %[[COUNT:.*]] = arith.index_castui %[[RAW]] : i32 to index
// CHECK: %[[UNSEALED:.*]] = arith.cmpi eq, %[[COUNT]], %c0 : index
// CHECK-NOT: memref.load %arg2
// CHECK: %[[PHASE:.*]] = arith.remui %[[POS]], %c4{{.*}} : index
// CHECK: %[[ONSTRIDE:.*]] = arith.cmpi eq, %[[PHASE]], %c0{{.*}} : index
// CHECK-DAG: %[[ROOM:.*]] = arith.cmpi ult, %[[A]], %c5 : index
// CHECK-DAG: %[[BOTH:.*]] = arith.andi %[[UNSEALED]], %[[ONSTRIDE]] : i1
// CHECK: %[[CAPTURE:.*]] = arith.andi %[[BOTH]], %[[ROOM]] : i1
// CHECK-NEXT: scf.if %[[CAPTURE]] {
// CHECK: %[[BASE:.*]] = arith.muli %[[KV]], %c120 : index
// CHECK-NEXT: %[[FROM:.*]] = arith.addi %[[BASE]], %[[D]] : index
// CHECK-NEXT: %[[V:.*]] = memref.load %arg0[%[[FROM]]] : memref<240xf32>
// CHECK-NEXT: memref.store %[[V]], %arg3[%[[KV]], %[[A]], %[[D]]] : memref<2x5x40xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @f(%q: memref<240xf32>, %p: memref<4xi32>, %meta: memref<6xi32>, %l: memref<2x5x40xf32>) {
  stage.dispatch "landmark_capture" {
    stage.landmark_capture q(%q : memref<240xf32>) params(%p : memref<4xi32>) far_meta(%meta : memref<6xi32>) landmarks(%l : memref<2x5x40xf32>) {stride = 4 : i64, position_word = 3 : i64}
  }
  return
}
