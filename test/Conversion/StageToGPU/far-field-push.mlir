// REQUIRES: compiler
// stage.far_field_push with 2 KV heads of 12 dims, a 7-slot ring, window 5 and 3
// landmarks: a 256-thread workgroup (the reduce width) per KV head, four 3-float
// workgroup buffers (new z, rescale, weight, score) and the dots' 24 partials. The
// position (params word 1) and the head's three meta words are loaded at the top, before
// anything is written; key pos - 5 leaves from slot (pos - 5) mod 7. It is due when pos
// >= 5 and the key is not folded yet, folded only when also sealed (count > 0), else the
// landmark loops run 0 times. The scores l_b . k_j: 8 lanes a landmark (12 dims: at most
// one lane a dim pair), partials in workgroup memory, one barrier, lane b adds its 8 in
// order and scales. Phase one (a landmark a lane, the lane that wrote its score: no
// barrier): two exps, the three values into workgroup memory; one barrier; phase two
// writes z and n, then theta over count x 12 with v_j, held a thread; a barrier; then
// lane 0 alone stores the next-to-fold word (when due) and the folded count (when
// folded), never the landmark count.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@far_field_push blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @far_field_push({{.*}}) workgroup(%[[ZNEW:.*]] : memref<3xf32, #gpu.address_space<workgroup>>, %[[RESCALE:.*]] : memref<3xf32, #gpu.address_space<workgroup>>, %[[WEIGHT:.*]] : memref<3xf32, #gpu.address_space<workgroup>>, %[[SCORES:.*]] : memref<3xf32, #gpu.address_space<workgroup>>, %[[PARTIALS:.*]] : memref<24xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: %[[SCALE:.*]] = arith.constant 2.886750e-01 : f32
// CHECK: %[[KV:.*]] = gpu.block_id x
// CHECK: %[[RAWPOS:.*]] = memref.load %arg2[%c1] : memref<4xi32>
// CHECK-NEXT: %[[POS:.*]] = arith.index_castui %[[RAWPOS]] : i32 to index
// CHECK-NOT: memref.load %arg2
// CHECK: %[[COUNTW:.*]] = arith.muli %[[KV]], %c3 : index
// CHECK: %[[NEXTW:.*]] = arith.addi %[[COUNTW]], %c1{{.*}} : index
// CHECK: %[[FOLDEDW:.*]] = arith.addi %[[COUNTW]], %c2 : index
// CHECK-NEXT: %[[RAW0:.*]] = memref.load %arg5[%[[COUNTW]]] : memref<6xi32>
// CHECK-NEXT: %[[SEALED:.*]] = arith.index_castui %[[RAW0]] : i32 to index
// CHECK-NEXT: %[[RAW1:.*]] = memref.load %arg5[%[[NEXTW]]] : memref<6xi32>
// CHECK-NEXT: %[[NEXT:.*]] = arith.index_castui %[[RAW1]] : i32 to index
// CHECK-NEXT: %[[RAW2:.*]] = memref.load %arg5[%[[FOLDEDW]]] : memref<6xi32>
// CHECK-NEXT: %[[FOLDED:.*]] = arith.index_castui %[[RAW2]] : i32 to index
// CHECK-NOT: memref.load %arg5
// CHECK: %[[LEAVING:.*]] = arith.subi %[[POS]], %c5 : index
// CHECK-DAG: %[[LATE:.*]] = arith.cmpi uge, %[[LEAVING]], %[[NEXT]] : index
// CHECK-DAG: %[[PAST:.*]] = arith.cmpi uge, %[[POS]], %c5{{.*}} : index
// CHECK: %[[DUE:.*]] = arith.andi %[[PAST]], %[[LATE]] : i1
// CHECK: %[[ISSEALED:.*]] = arith.cmpi ne, %[[SEALED]], %c0 : index
// CHECK-NEXT: %[[FOLD:.*]] = arith.andi %[[DUE]], %[[ISSEALED]] : i1
// CHECK: %[[COUNT:.*]] = arith.select %[[FOLD]], %[[SEALED]], %c0{{.*}} : index
// CHECK: %[[SLOT:.*]] = arith.remui %[[LEAVING]], %c7 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[FOLDED]], %c0{{.*}} : index
// CHECK-NOT: memref.store
// CHECK: %[[DOTLANES:.*]] = arith.muli %[[COUNT]], %c8 : index
// CHECK: scf.for %[[I:.*]] = %thread_id_x to %[[DOTLANES]] step %c256 {
// CHECK: %[[LB:.*]] = arith.divui %[[I]], %c8{{.*}} : index
// CHECK: %[[PART:.*]] = arith.remui %[[I]], %c8{{.*}} : index
// CHECK: scf.for
// CHECK-DAG: memref.load %arg0[%[[KV]], %[[SLOT]], %{{.*}}] : memref<2x7x12xf32>
// CHECK-DAG: memref.load %arg3[%[[KV]], %[[LB]], %{{.*}}] : memref<2x3x12xf32>
// CHECK: scf.yield
// CHECK: memref.store %{{.*}}, %[[PARTIALS]][%[[I]]] : memref<24xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for %[[BS:.*]] = %thread_id_x{{.*}} to %[[COUNT]] step %c256{{.*}} {
// CHECK-COUNT-8: memref.load %[[PARTIALS]]
// CHECK: %[[DOT:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK-NEXT: memref.store %[[DOT]], %[[SCORES]][%[[BS]]]
// CHECK-NEXT: }
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %[[B:.*]] = %thread_id_x{{.*}} to %[[COUNT]] step %c256{{.*}} {
// CHECK-NEXT: %[[S:.*]] = memref.load %[[SCORES]][%[[B]]]
// CHECK: %[[Z:.*]] = memref.load %arg4[%[[KV]], %[[B]], %c0{{.*}}] : memref<2x3x14xf32>
// CHECK-NEXT: %[[GT:.*]] = arith.cmpf ogt, %[[S]], %[[Z]] : f32
// CHECK-NEXT: %[[NEWMAX:.*]] = arith.ori %[[FIRST]], %[[GT]] : i1
// CHECK: %[[DZ:.*]] = arith.subf %[[Z]], %[[S]] : f32
// CHECK-NEXT: %[[EZ:.*]] = math.exp %[[DZ]] : f32
// CHECK: %[[HELD:.*]] = arith.select %[[FIRST]], %{{.*}}, %[[EZ]] : f32
// CHECK-NEXT: %[[ZV:.*]] = arith.select %[[NEWMAX]], %[[S]], %[[Z]] : f32
// CHECK-NEXT: memref.store %[[ZV]], %[[ZNEW]][%[[B]]]
// CHECK: %[[R:.*]] = arith.select %[[NEWMAX]], %[[HELD]], %{{.*}} : f32
// CHECK-NEXT: memref.store %[[R]], %[[RESCALE]][%[[B]]]
// CHECK-NEXT: %[[DS:.*]] = arith.subf %[[S]], %[[ZV]] : f32
// CHECK-NEXT: %[[W:.*]] = math.exp %[[DS]] : f32
// CHECK-NEXT: memref.store %[[W]], %[[WEIGHT]][%[[B]]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for %[[B2:.*]] = %thread_id_x{{.*}} to %[[COUNT]] step %c256{{.*}} {
// CHECK: %[[ZL:.*]] = memref.load %[[ZNEW]][%[[B2]]]
// CHECK: memref.store %[[ZL]], %arg4[%[[KV]], %[[B2]], %c0{{.*}}] : memref<2x3x14xf32>
// CHECK: %[[N:.*]] = memref.load %arg4[%[[KV]], %[[B2]], %c1{{.*}}] : memref<2x3x14xf32>
// CHECK-DAG: %[[W2:.*]] = memref.load %[[WEIGHT]][%[[B2]]]
// CHECK-DAG: %[[R2:.*]] = memref.load %[[RESCALE]][%[[B2]]]
// CHECK: %[[NR:.*]] = arith.mulf %[[N]], %[[R2]] : f32
// CHECK: %[[NN:.*]] = arith.addf %[[NR]], %[[W2]] : f32
// CHECK: memref.store %[[NN]], %arg4[%[[KV]], %[[B2]], %c1{{.*}}] : memref<2x3x14xf32>
// CHECK-NEXT: }
// theta: 3 x 12 = 36 elements held one a thread (clamped to 35), loaded
// under count != 0 and stored only below count x 12.
// CHECK: %[[THETAS:.*]] = arith.muli %[[COUNT]], %c12 : index
// CHECK: %[[E:.*]] = arith.addi %thread_id_x{{.*}}, %c0{{.*}} : index
// CHECK: %[[SAFE:.*]] = arith.minui %[[E]], %c35 : index
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %[[COUNT]], %c0{{.*}} : index
// CHECK-NEXT: scf.if %[[ANY]] {
// CHECK: %[[BT:.*]] = arith.divui %[[SAFE]], %c12{{.*}} : index
// CHECK: %[[DT:.*]] = arith.remui %[[SAFE]], %c12{{.*}} : index
// CHECK: %[[AT:.*]] = arith.addi %[[DT]], %c2{{.*}} : index
// CHECK-NEXT: memref.load %arg4[%[[KV]], %[[BT]], %[[AT]]] : memref<2x3x14xf32>
// CHECK: memref.load %arg1[%[[KV]], %[[SLOT]], %{{.*}}] : memref<2x7x12xf32>
// CHECK: %[[INSIDE:.*]] = arith.cmpi ult, %[[E]], %[[THETAS]] : index
// CHECK-NEXT: scf.if %[[INSIDE]] {
// CHECK: memref.store %{{.*}}, %arg4[%[[KV]], %{{.*}}, %{{.*}}] : memref<2x3x14xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK-NOT: math.exp
// CHECK: %[[LANE0:.*]] = arith.cmpi eq, %thread_id_x{{.*}}, %c0{{.*}} : index
// CHECK-NEXT: %[[WRITE:.*]] = arith.andi %[[LANE0]], %[[DUE]] : i1
// CHECK-NEXT: scf.if %[[WRITE]] {
// CHECK: %[[NEXTV:.*]] = arith.addi %[[LEAVING]], %c1{{.*}} : index
// CHECK-NEXT: %[[NEXTI:.*]] = arith.index_castui %[[NEXTV]] : index to i32
// CHECK-NEXT: memref.store %[[NEXTI]], %arg5[%[[NEXTW]]] : memref<6xi32>
// CHECK-NEXT: scf.if %[[FOLD]] {
// CHECK: %[[FOLDEDV:.*]] = arith.addi %[[FOLDED]], %c1{{.*}} : index
// CHECK-NEXT: %[[FOLDEDI:.*]] = arith.index_castui %[[FOLDEDV]] : index to i32
// CHECK-NEXT: memref.store %[[FOLDEDI]], %arg5[%[[FOLDEDW]]] : memref<6xi32>
// CHECK-NOT: memref.store
// CHECK: gpu.return
func.func @f(%kr: memref<2x7x12xf32>, %vr: memref<2x7x12xf32>, %p: memref<4xi32>, %l: memref<2x3x12xf32>, %s: memref<2x3x14xf32>, %meta: memref<6xi32>) {
  stage.dispatch "far_field_push" {
    stage.far_field_push k_ring(%kr : memref<2x7x12xf32>) v_ring(%vr : memref<2x7x12xf32>) params(%p : memref<4xi32>) landmarks(%l : memref<2x3x12xf32>) far_sums(%s : memref<2x3x14xf32>) far_meta(%meta : memref<6xi32>) {window = 5 : i64, scale = 0.288675 : f32}
  }
  return
}
