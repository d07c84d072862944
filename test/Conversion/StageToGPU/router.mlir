// REQUIRES: compiler
// stage.router: one 256-thread workgroup walks the experts in a loop carrying the best
// (score, id), seeded with (-inf, 0). Per expert one strided pass over the row reads x and
// the centre once and the basis rows of a round; rank 10 goes in two rounds (distance plus
// 8 projections, then 2), both through one 9 x 256 buffer, 10 barriers a round. Shells
// mask the score to -inf; strict ogt keeps the lower id on a tie. Lane 0 alone stores
// the id once. Without basis and shells: one round of one value, no mask.
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @rounds
// CHECK: gpu.launch_func @kiln_kernels::@router blocks in (%c1{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @router({{.*}}: memref<1xi32>) workgroup(%arg6 : memref<2304xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[BEST:.*]]:2 = scf.for %[[E:.*]] = %{{.*}} to %c5 step %c1 iter_args(%[[S:.*]] = %[[NEGINF]], %[[ID:.*]] = %c0{{[_0-9]*}}) -> (f32, index) {
// CHECK: scf.for %[[I:.*]] = %thread_id_x{{.*}} to %c52 step %c256 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-DAG: %[[MU:.*]] = memref.load %arg1[%[[E]], %[[I]]] : memref<5x52xf32>
// CHECK-DAG: %[[X:.*]] = memref.load %arg0[%[[I]]] : memref<52xf32>
// CHECK: %[[D:.*]] = arith.subf %[[X]], %[[MU]] : f32
// CHECK: %[[U0:.*]] = memref.load %arg2[%[[E]], %c0{{.*}}, %[[I]]] : memref<5x10x52xf32>
// CHECK-NEXT: arith.mulf %[[D]], %[[U0]] : f32
// CHECK: memref.load %arg2[%[[E]], %c7, %[[I]]] : memref<5x10x52xf32>
// CHECK-NOT: memref.load
// CHECK: scf.yield
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %[[J:.*]] = %thread_id_x{{.*}} to %c52{{.*}} step %c256{{.*}} iter_args({{.*}}) -> (f32, f32) {
// CHECK-DAG: %[[MU2:.*]] = memref.load %arg1[%[[E]], %[[J]]] : memref<5x52xf32>
// CHECK-DAG: %[[X2:.*]] = memref.load %arg0[%[[J]]] : memref<52xf32>
// CHECK: arith.subf %[[X2]], %[[MU2]] : f32
// CHECK: memref.load %arg2[%[[E]], %c8{{.*}}, %[[J]]] : memref<5x10x52xf32>
// CHECK: memref.load %arg2[%[[E]], %c9, %[[J]]] : memref<5x10x52xf32>
// CHECK-NOT: memref.load
// CHECK: scf.yield
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %arg3[%[[E]]] : memref<5xf32>
// CHECK: %[[SHELL:.*]] = memref.load %arg4[%[[E]]] : memref<5xf32>
// CHECK-NEXT: %[[OUTSIDE:.*]] = arith.cmpf ogt, %{{.*}}, %[[SHELL]] : f32
// CHECK-NEXT: %[[SCORE:.*]] = arith.select %[[OUTSIDE]], %[[NEGINF]], %{{.*}} : f32
// CHECK-NEXT: %[[BETTER:.*]] = arith.cmpf ogt, %[[SCORE]], %[[S]] : f32
// CHECK-NEXT: %[[NS:.*]] = arith.select %[[BETTER]], %[[SCORE]], %[[S]] : f32
// CHECK-NEXT: %[[NID:.*]] = arith.select %[[BETTER]], %[[E]], %[[ID]] : index
// CHECK-NEXT: scf.yield %[[NS]], %[[NID]] : f32, index
// CHECK: %[[LANE0:.*]] = arith.cmpi eq, %thread_id_x, %c0{{.*}} : index
// CHECK-NEXT: scf.if %[[LANE0]] {
// CHECK-NEXT: %[[WORD:.*]] = arith.index_castui %[[BEST]]#1 : index to i32
// CHECK: memref.store %[[WORD]], %arg5[%c0{{.*}}] : memref<1xi32>
// CHECK-NOT: memref.store %{{.*}}, %arg5
// CHECK: gpu.return
func.func @rounds(%x: memref<52xf32>, %mu: memref<5x52xf32>, %u: memref<5x10x52xf32>, %b: memref<5xf32>, %s: memref<5xf32>, %sel: memref<1xi32>) {
  stage.dispatch "router" {
    stage.router input(%x : memref<52xf32>) centres(%mu : memref<5x52xf32>) basis(%u : memref<5x10x52xf32>) bias(%b : memref<5xf32>) shells(%s : memref<5xf32>) selected(%sel : memref<1xi32>)
  }
  return
}

// -----

// CHECK-LABEL: func.func @plain
// CHECK: gpu.launch_func @kiln_kernels::@router blocks in (%c1{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @router({{.*}}) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %c3 step %c1 iter_args(%[[S:.*]] = %cst, %{{.*}} = %c0{{[_0-9]*}}) -> (f32, index) {
// CHECK: scf.for %[[I:.*]] = %thread_id_x{{.*}} to %c300 step %c256 iter_args({{.*}}) -> (f32) {
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[BIAS:.*]] = memref.load %arg2[%[[E]]] : memref<3xf32>
// CHECK-NEXT: %[[SCORE:.*]] = arith.subf %[[BIAS]], %{{.*}} : f32
// CHECK-NEXT: arith.cmpf ogt, %[[SCORE]], %[[S]] : f32
// CHECK: memref.store %{{.*}}, %arg3[%c0{{.*}}] : memref<1xi32>
// CHECK-NOT: memref.store %{{.*}}, %arg3
// CHECK: gpu.return
func.func @plain(%x: memref<300xf32>, %mu: memref<3x300xf32>, %b: memref<3xf32>, %sel: memref<1xi32>) {
  stage.dispatch "router" {
    stage.router input(%x : memref<300xf32>) centres(%mu : memref<3x300xf32>) bias(%b : memref<3xf32>) selected(%sel : memref<1xi32>)
  }
  return
}
