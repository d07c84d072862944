// REQUIRES: compiler
// stage.exit_test: one 256-thread workgroup walks the rows in a loop carrying "every row
// so far is confident" (from true). Per row a strided max over the 300 values (a max tree,
// 10 barriers); for logits also sum exp(l - max), one exp a value, reduced by an add tree
// (10 more barriers), and max log-prob = -log(sum). The row is confident when that is
// oge the least f32 L with exp(L) >= 0.9, -0.105360515. Lane 0 alone, and only when
// every row passed, stores 1 into the flag word (0 by default, 1 here).
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @logprobs
// CHECK: gpu.launch_func @kiln_kernels::@exit_test blocks in (%c1{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @exit_test({{.*}}) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: %[[BOUND:.*]] = arith.constant -0.105360515 : f32
// CHECK: %[[ALLROWS:.*]] = scf.for %[[ROW:.*]] = %c0 to %c1{{.*}} step %c1{{.*}} iter_args(%[[ALL:.*]] = %true) -> (i1) {
// CHECK: %[[FLOOR:.*]] = arith.constant -3.400000e+38 : f32
// CHECK: scf.for %[[I:.*]] = %thread_id_x{{.*}} to %c300 step %c256 iter_args(%[[M:.*]] = %[[FLOOR]]) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = memref.load %arg0[%[[I]]] : memref<300xf32>
// CHECK-NEXT: arith.maxnumf %[[M]], %[[X]] : f32
// CHECK-NOT: memref.load %arg0
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %thread_id_x{{.*}}, %c128 : index
// CHECK: arith.maxnumf
// CHECK-COUNT-9: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK: %[[CONF:.*]] = arith.cmpf oge, %{{.*}}, %[[BOUND]] : f32
// CHECK-NEXT: %[[STILL:.*]] = arith.andi %[[ALL]], %[[CONF]] : i1
// CHECK-NEXT: scf.yield %[[STILL]] : i1
// CHECK: %[[LANE0:.*]] = arith.cmpi eq, %thread_id_x, %c0{{.*}} : index
// CHECK-NEXT: %[[RAISE:.*]] = arith.andi %[[LANE0]], %[[ALLROWS]] : i1
// CHECK-NEXT: scf.if %[[RAISE]] {
// CHECK: memref.store %c1_i32, %arg1[%c0{{.*}}] : memref<1xi32>
// CHECK-NOT: memref.store
// CHECK: gpu.return
func.func @logprobs(%lp: memref<300xf32>, %f: memref<1xi32>) {
  stage.dispatch "exit_test" {
    stage.exit_test input(%lp : memref<300xf32>) flag(%f : memref<1xi32>) {threshold = 9.0e-01 : f64}
  }
  return
}

// -----

// CHECK-LABEL: func.func @logits_rows
// CHECK: gpu.launch_func @kiln_kernels::@exit_test blocks in (%c1{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @exit_test({{.*}}) workgroup(%[[WG:.*]] : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: %[[BOUND:.*]] = arith.constant -0.105360515 : f32
// CHECK: %[[ALLROWS:.*]] = scf.for %[[ROW:.*]] = %c0 to %c3 step %c1 iter_args(%[[ALL:.*]] = %true) -> (i1) {
// CHECK: scf.for %[[I:.*]] = %thread_id_x{{.*}} to %c300 step %c256 iter_args({{.*}}) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[I]]] : memref<3x300xf32>
// CHECK-NEXT: arith.maxnumf %{{.*}}, %[[X]] : f32
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %thread_id_x{{.*}}, %c128 : index
// CHECK: arith.maxnumf
// CHECK-COUNT-8: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[MAX:.*]] = memref.load %[[WG]][%c0{{.*}}] : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for %[[J:.*]] = %thread_id_x{{.*}} to %c300{{.*}} step %c256{{.*}} iter_args({{.*}}) -> (f32) {
// CHECK-NEXT: %[[L:.*]] = memref.load %arg0[%[[ROW]], %[[J]]] : memref<3x300xf32>
// CHECK-NEXT: %[[SHIFTED:.*]] = arith.subf %[[L]], %[[MAX]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[SHIFTED]] : f32
// CHECK-NEXT: arith.addf %{{.*}}, %[[E]] : f32
// CHECK-NOT: math.exp
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %thread_id_x{{.*}}, %c128{{.*}} : index
// CHECK: arith.addf
// CHECK-COUNT-9: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[LOG:.*]] = math.log %{{.*}} : f32
// CHECK-NEXT: %[[BEST:.*]] = arith.negf %[[LOG]] : f32
// CHECK-NEXT: %[[CONF:.*]] = arith.cmpf oge, %[[BEST]], %[[BOUND]] : f32
// CHECK-NEXT: %[[STILL:.*]] = arith.andi %[[ALL]], %[[CONF]] : i1
// CHECK-NEXT: scf.yield %[[STILL]] : i1
// CHECK: %[[LANE0:.*]] = arith.cmpi eq, %thread_id_x, %c0{{.*}} : index
// CHECK-NEXT: %[[RAISE:.*]] = arith.andi %[[LANE0]], %[[ALLROWS]] : i1
// CHECK-NEXT: scf.if %[[RAISE]] {
// CHECK: memref.store %c1_i32, %arg1[%c1{{.*}}] : memref<2xi32>
// CHECK-NOT: memref.store
// CHECK: gpu.return
func.func @logits_rows(%l: memref<3x300xf32>, %f: memref<2xi32>) {
  stage.dispatch "exit_test" {
    stage.exit_test input(%l : memref<3x300xf32>) flag(%f : memref<2xi32>) {threshold = 9.0e-01 : f64, flag_word = 1 : i64, logits}
  }
  return
}

// -----

// A wider row: 8,192 values over 256 threads, 16 loads a thread issued before
// their 16 maxima each trip (two trips), no rest.
// CHECK-LABEL: func.func @wide
// CHECK: gpu.func @exit_test(
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK-COUNT-16: memref.load %arg0
// CHECK-NOT: arith.maxnumf
// CHECK-COUNT-16: arith.maxnumf
// CHECK-NOT: memref.load %arg0
// CHECK: scf.yield
func.func @wide(%lp: memref<8192xf32>, %f: memref<1xi32>) {
  stage.dispatch "exit_test" {
    stage.exit_test input(%lp : memref<8192xf32>) flag(%f : memref<1xi32>) {threshold = 9.0e-01 : f64}
  }
  return
}
