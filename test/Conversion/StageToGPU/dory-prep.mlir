// REQUIRES: compiler
// stage.dory_prep with 6 query heads, 2 KV heads of 12 dims and a 5-slot ring: a 64-thread
// workgroup per head, 6 + 2 = 8. The position is read once (params word 1) and the ring
// slot is position mod 5. A query workgroup rotates the pairs (i, i + 6) of its head by
// pos * exp(i * -2 ln(10000) / 12) (one exp a pair) into q_out, reduces their squares
// (8 barriers), takes one rsqrt and scales q_out by it and s_qk[head]. A KV workgroup
// (head - 6) rotates k straight into its ring slot, normalises it there and copies v
// into the same slot of the v ring; it stores nothing else.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@dory_prep blocks in (%c8, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @dory_prep({{.*}}) workgroup(%{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: %[[RAW:.*]] = memref.load %arg4[%c1] : memref<4xi32>
// CHECK-NEXT: %[[POS:.*]] = arith.index_castui %[[RAW]] : i32 to index
// CHECK: %[[SLOT:.*]] = arith.remui %[[POS]], %c5 : index
// CHECK-NOT: memref.load %arg4
// CHECK: %[[HEAD:.*]] = gpu.block_id x
// CHECK: %[[ISQ:.*]] = arith.cmpi ult, %[[HEAD]], %c6 : index
// CHECK-NEXT: scf.if %[[ISQ]] {
// CHECK: %[[QBASE:.*]] = arith.muli %[[HEAD]], %c12 : index
// CHECK: scf.for %[[I:.*]] = %thread_id_x to %c6{{.*}} step %c64 iter_args({{.*}}) -> (f32) {
// CHECK: %[[EXPONENT:.*]] = arith.constant -1.53505671 : f32
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[EXPONENT]] : f32
// CHECK: math.exp %[[SCALED]] : f32
// CHECK-NOT: math.exp
// CHECK: math.cos
// CHECK-NEXT: math.sin
// CHECK: %[[J:.*]] = arith.addi %[[I]], %c6{{.*}} : index
// CHECK-NEXT: %[[AI:.*]] = arith.addi %[[QBASE]], %[[I]] : index
// CHECK-NEXT: memref.load %arg0[%[[AI]]] : memref<72xf32>
// CHECK-NEXT: %[[AJ:.*]] = arith.addi %[[QBASE]], %[[J]] : index
// CHECK-NEXT: memref.load %arg0[%[[AJ]]] : memref<72xf32>
// CHECK-NOT: memref.store
// CHECK: memref.store %{{.*}}, %arg5[%{{.*}}] : memref<72xf32>
// CHECK: memref.store %{{.*}}, %arg5[%{{.*}}] : memref<72xf32>
// CHECK-NOT: memref.store
// CHECK: scf.yield
// CHECK-COUNT-8: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[QINV:.*]] = math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: scf.for %[[D:.*]] = %thread_id_x{{.*}} to %c12{{.*}} step %c64{{.*}} {
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[QBASE]], %[[D]] : index
// CHECK-DAG: memref.load %arg3[%[[HEAD]], %[[D]]] : memref<6x12xf32>
// CHECK-DAG: %[[QO:.*]] = memref.load %arg5[%[[AT]]] : memref<72xf32>
// CHECK: arith.mulf %[[QO]], %[[QINV]] : f32
// CHECK: memref.store %{{.*}}, %arg5[%[[AT]]] : memref<72xf32>
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK: %[[KV:.*]] = arith.subi %[[HEAD]], %c6{{.*}} : index
// CHECK: %[[KBASE:.*]] = arith.muli %[[KV]], %c12 : index
// CHECK: scf.for %[[I:.*]] = %thread_id_x{{.*}} to %c6{{.*}} step %c64 iter_args({{.*}}) -> (f32) {
// CHECK: %[[J:.*]] = arith.addi %[[I]], %c6{{.*}} : index
// CHECK-NEXT: %[[AI:.*]] = arith.addi %[[KBASE]], %[[I]] : index
// CHECK-NEXT: memref.load %arg1[%[[AI]]] : memref<24xf32>
// CHECK-NEXT: %[[AJ:.*]] = arith.addi %[[KBASE]], %[[J]] : index
// CHECK-NEXT: memref.load %arg1[%[[AJ]]] : memref<24xf32>
// CHECK-NOT: memref.store
// CHECK: memref.store %{{.*}}, %arg6[%[[KV]], %[[SLOT]], %[[I]]] : memref<2x5x12xf32>
// CHECK-NEXT: memref.store %{{.*}}, %arg6[%[[KV]], %[[SLOT]], %[[J]]] : memref<2x5x12xf32>
// CHECK-NOT: memref.store
// CHECK: scf.yield
// CHECK-COUNT-8: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[KINV:.*]] = math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: scf.for %[[D:.*]] = %thread_id_x{{.*}} to %c12{{.*}} step %c64{{.*}} {
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[KBASE]], %[[D]] : index
// CHECK-NEXT: %[[K:.*]] = memref.load %arg6[%[[KV]], %[[SLOT]], %[[D]]] : memref<2x5x12xf32>
// CHECK-NEXT: %[[KN:.*]] = arith.mulf %[[K]], %[[KINV]] : f32
// CHECK-NEXT: memref.store %[[KN]], %arg6[%[[KV]], %[[SLOT]], %[[D]]] : memref<2x5x12xf32>
// CHECK-NEXT: %[[V:.*]] = memref.load %arg2[%[[AT]]] : memref<24xf32>
// CHECK-NEXT: memref.store %[[V]], %arg7[%[[KV]], %[[SLOT]], %[[D]]] : memref<2x5x12xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @f(%q: memref<72xf32>, %k: memref<24xf32>, %v: memref<24xf32>, %s: memref<6x12xf32>, %p: memref<4xi32>, %qo: memref<72xf32>, %kr: memref<2x5x12xf32>, %vr: memref<2x5x12xf32>) {
  stage.dispatch "dory_prep" {
    stage.dory_prep q(%q : memref<72xf32>) k(%k : memref<24xf32>) v(%v : memref<24xf32>) s_qk(%s : memref<6x12xf32>) params(%p : memref<4xi32>) q_out(%qo : memref<72xf32>) k_ring(%kr : memref<2x5x12xf32>) v_ring(%vr : memref<2x5x12xf32>) {rope_theta = 10000.0 : f32, eps = 1.0e-06 : f32}
  }
  return
}
