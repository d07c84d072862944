// REQUIRES: compiler
// The elementwise stages on 200 values: a thread per value, 4 workgroups of 64 (the last
// one partly past the end, masked by i < 200); no workgroup memory, no barrier. Each
// thread loads lhs[i] and rhs[i] once, forms silu(a) * b (the sigmoid of a, one exp),
// a + b, a * b (times fold[i] when given: a third load) or a * sigmoid(b) (the sigmoid of
// b), and stores out[i] once.
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @silu_mul
// CHECK: gpu.launch_func @kiln_kernels::@silu_mul blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @silu_mul(%arg0: memref<200xf32>, %arg1: memref<200xf32>, %arg2: memref<200xf32>) kernel attributes
// CHECK-NOT: gpu.barrier
// CHECK: %[[I:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %c200 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[A:.*]] = memref.load %arg0[%[[I]]] : memref<200xf32>
// CHECK-NEXT: %[[B:.*]] = memref.load %arg1[%[[I]]] : memref<200xf32>
// CHECK: %[[NEG:.*]] = arith.negf %[[A]] : f32
// CHECK-NEXT: math.exp %[[NEG]] : f32
// CHECK-NOT: math.exp
// CHECK: %[[SIG:.*]] = arith.divf
// CHECK-NEXT: %[[SILU:.*]] = arith.mulf %[[A]], %[[SIG]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[SILU]], %[[B]] : f32
// CHECK-NEXT: memref.store %[[Y]], %arg2[%[[I]]] : memref<200xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @silu_mul(%a: memref<200xf32>, %b: memref<200xf32>, %o: memref<200xf32>) {
  stage.dispatch "silu_mul" {
    stage.silu_mul ins(%a, %b : memref<200xf32>, memref<200xf32>) out(%o : memref<200xf32>)
  }
  return
}

// -----

// CHECK-LABEL: func.func @add
// CHECK: gpu.launch_func @kiln_kernels::@add blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @add(%arg0: memref<200xf32>, %arg1: memref<200xf32>, %arg2: memref<200xf32>) kernel attributes
// CHECK-NOT: gpu.barrier
// CHECK: %[[I:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %c200 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[A:.*]] = memref.load %arg0[%[[I]]] : memref<200xf32>
// CHECK-NEXT: %[[B:.*]] = memref.load %arg1[%[[I]]] : memref<200xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: memref.store %[[Y]], %arg2[%[[I]]] : memref<200xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @add(%a: memref<200xf32>, %b: memref<200xf32>, %o: memref<200xf32>) {
  stage.dispatch "add" {
    stage.add ins(%a, %b : memref<200xf32>, memref<200xf32>) out(%o : memref<200xf32>)
  }
  return
}

// -----

// CHECK-LABEL: func.func @mul_fold
// CHECK: gpu.launch_func @kiln_kernels::@mul blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @mul(%arg0: memref<200xf32>, %arg1: memref<200xf32>, %arg2: memref<200xf32>, %arg3: memref<200xf32>) kernel attributes
// CHECK-NOT: gpu.barrier
// CHECK: %[[I:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %c200 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[A:.*]] = memref.load %arg0[%[[I]]] : memref<200xf32>
// CHECK-NEXT: %[[B:.*]] = memref.load %arg1[%[[I]]] : memref<200xf32>
// CHECK-NEXT: %[[AB:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[F:.*]] = memref.load %arg3[%[[I]]] : memref<200xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[AB]], %[[F]] : f32
// CHECK-NEXT: memref.store %[[Y]], %arg2[%[[I]]] : memref<200xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @mul_fold(%a: memref<200xf32>, %b: memref<200xf32>, %o: memref<200xf32>, %f: memref<200xf32>) {
  stage.dispatch "mul" {
    stage.mul ins(%a, %b : memref<200xf32>, memref<200xf32>) out(%o : memref<200xf32>) fold(%f : memref<200xf32>)
  }
  return
}

// -----

// CHECK-LABEL: func.func @sigmoid_gate
// CHECK: gpu.launch_func @kiln_kernels::@sigmoid_gate blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @sigmoid_gate(%arg0: memref<200xf32>, %arg1: memref<200xf32>, %arg2: memref<200xf32>) kernel attributes
// CHECK-NOT: gpu.barrier
// CHECK: %[[I:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %c200 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[A:.*]] = memref.load %arg0[%[[I]]] : memref<200xf32>
// CHECK-NEXT: %[[B:.*]] = memref.load %arg1[%[[I]]] : memref<200xf32>
// CHECK: %[[NEG:.*]] = arith.negf %[[B]] : f32
// CHECK-NEXT: math.exp %[[NEG]] : f32
// CHECK-NOT: math.exp
// CHECK: %[[SIG:.*]] = arith.divf
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[A]], %[[SIG]] : f32
// CHECK-NEXT: memref.store %[[Y]], %arg2[%[[I]]] : memref<200xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @sigmoid_gate(%a: memref<200xf32>, %b: memref<200xf32>, %o: memref<200xf32>) {
  stage.dispatch "sigmoid_gate" {
    stage.sigmoid_gate ins(%a, %b : memref<200xf32>, memref<200xf32>) out(%o : memref<200xf32>)
  }
  return
}
