// REQUIRES: compiler
// stage.sample: one workgroup (reduce-workgroup-size 256). Without params only the
// greedy pick; with params, temperature (word 3) decides whether the kernel draws, and
// the draw reads top_p (word 4) and the random word (word 5), then runs at most 32
// draws, each a pass over the vocabulary (exp of the tempered weight) and a uniform from
// the lowbias32 hash of the random word and the draw's number.
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @greedy
// CHECK: gpu.launch_func @kiln_kernels::@pick blocks in (%c1{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @pick
// CHECK-NOT: to %c32
// CHECK: gpu.return
func.func @greedy(%v: memref<300xf32>, %o: memref<2xi32>) {
  stage.dispatch "pick" {
    stage.sample values(%v : memref<300xf32>) out(%o : memref<2xi32>) {logits}
  }
  return
}

// -----

// CHECK-LABEL: func.func @draws
// CHECK: gpu.launch_func @kiln_kernels::@draw blocks in (%c1{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @draw(%[[V:.*]]: memref<300xf32>, %[[P:.*]]: memref<8xi32>, %[[O:.*]]: memref<2xi32>)
// CHECK: memref.load %[[P]][%c3{{.*}}] : memref<8xi32>
// CHECK: scf.if %{{.*}} -> (f32, f32) {
// CHECK-DAG: memref.load %[[P]][%c5{{.*}}] : memref<8xi32>
// CHECK-DAG: memref.load %[[P]][%c4{{.*}}] : memref<8xi32>
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK: math.exp
// CHECK: arith.muli %{{.*}}, %c-1640531527_i32 : i32
// CHECK: arith.muli %{{.*}}, %c2146121005_i32 : i32
// CHECK: arith.muli %{{.*}}, %c-2073254261_i32 : i32
// CHECK: memref.store %{{.*}}, %[[O]][%c0{{.*}}] : memref<2xi32>
// CHECK: gpu.return
func.func @draws(%v: memref<300xf32>, %p: memref<8xi32>, %o: memref<2xi32>) {
  stage.dispatch "draw" {
    stage.sample values(%v : memref<300xf32>) params(%p : memref<8xi32>) out(%o : memref<2xi32>)
  }
  return
}
