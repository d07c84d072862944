// REQUIRES: compiler
// stage.dory_mix on a 300-wide row (more than one element for some of the 256 threads):
// one workgroup, one 256-float reduction buffer. Per mode, which of h / in / st each
// strided pass reads and writes, and how many norms it takes (a reduction of 10
// barriers and an rsqrt each): mode 0 copies h to in and st and normalises h + h; mode 1
// normalises h into st, then h = unit(st + in) (two norms); modes 2 and 3 normalise h in
// place (3 also into st); mode 4 normalises st + in into h. Only the named outputs are
// stored, each once a pass.
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @enter
// CHECK: gpu.launch_func @kiln_kernels::@dory_mix blocks in (%c1{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @dory_mix({{.*}}) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: scf.for %[[I:.*]] = %thread_id_x to %c300 step %c256 iter_args({{.*}}) -> (f32) {
// CHECK-NEXT: %[[H:.*]] = memref.load %arg0[%[[I]]] : memref<300xf32>
// CHECK-NEXT: memref.store %[[H]], %arg1[%[[I]]] : memref<300xf32>
// CHECK-NEXT: memref.store %[[H]], %arg2[%[[I]]] : memref<300xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[H]], %[[H]] : f32
// CHECK-NEXT: memref.store %[[Y]], %arg0[%[[I]]] : memref<300xf32>
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: scf.for %[[J:.*]] = %thread_id_x{{.*}} to %c300{{.*}} step %c256{{.*}} {
// CHECK-NEXT: %[[V:.*]] = memref.load %arg0[%[[J]]] : memref<300xf32>
// CHECK-NEXT: %[[U:.*]] = arith.mulf %[[V]], %[[INV]] : f32
// CHECK-NEXT: memref.store %[[U]], %arg0[%[[J]]] : memref<300xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @enter(%h: memref<300xf32>, %in: memref<300xf32>, %st: memref<300xf32>) {
  stage.dispatch "dory_mix" {
    stage.dory_mix hidden(%h : memref<300xf32>) entry(%in : memref<300xf32>) state(%st : memref<300xf32>) {mode = 0 : i64, eps = 1.0e-06 : f32}
  }
  return
}

// -----

// CHECK-LABEL: func.func @between
// CHECK: gpu.func @dory_mix({{.*}}) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: scf.for %[[I:.*]] = %thread_id_x to %c300 step %c256 iter_args({{.*}}) -> (f32) {
// CHECK-NEXT: memref.load %arg0[%[[I]]] : memref<300xf32>
// CHECK-NOT: memref.store
// CHECK: scf.yield
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[INVH:.*]] = math.rsqrt
// CHECK: scf.for %[[J:.*]] = %thread_id_x{{.*}} to %c300{{.*}} step %c256{{.*}} iter_args({{.*}}) -> (f32) {
// CHECK-NEXT: %[[H:.*]] = memref.load %arg0[%[[J]]] : memref<300xf32>
// CHECK-NEXT: %[[U:.*]] = arith.mulf %[[H]], %[[INVH]] : f32
// CHECK-NEXT: memref.store %[[U]], %arg2[%[[J]]] : memref<300xf32>
// CHECK-NEXT: %[[IN:.*]] = memref.load %arg1[%[[J]]] : memref<300xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[U]], %[[IN]] : f32
// CHECK-NEXT: memref.store %[[Y]], %arg0[%[[J]]] : memref<300xf32>
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: scf.for %[[K:.*]] = %thread_id_x{{.*}} to %c300{{.*}} step %c256{{.*}} {
// CHECK-NEXT: %[[V:.*]] = memref.load %arg0[%[[K]]] : memref<300xf32>
// CHECK-NEXT: %[[W:.*]] = arith.mulf %[[V]], %[[INV]] : f32
// CHECK-NEXT: memref.store %[[W]], %arg0[%[[K]]] : memref<300xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @between(%h: memref<300xf32>, %in: memref<300xf32>, %st: memref<300xf32>) {
  stage.dispatch "dory_mix" {
    stage.dory_mix hidden(%h : memref<300xf32>) entry(%in : memref<300xf32>) state(%st : memref<300xf32>) {mode = 1 : i64, eps = 1.0e-06 : f32}
  }
  return
}

// -----

// CHECK-LABEL: func.func @leave
// CHECK: scf.for %[[I:.*]] = %thread_id_x to %c300 step %c256 iter_args({{.*}}) -> (f32) {
// CHECK-NEXT: memref.load %arg0[%[[I]]] : memref<300xf32>
// CHECK-NOT: memref.store
// CHECK: scf.yield
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: scf.for %[[J:.*]] = %thread_id_x{{.*}} to %c300{{.*}} step %c256{{.*}} {
// CHECK-NEXT: %[[H:.*]] = memref.load %arg0[%[[J]]] : memref<300xf32>
// CHECK-NEXT: %[[U:.*]] = arith.mulf %[[H]], %[[INV]] : f32
// CHECK-NEXT: memref.store %[[U]], %arg0[%[[J]]] : memref<300xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @leave(%h: memref<300xf32>, %in: memref<300xf32>, %st: memref<300xf32>) {
  stage.dispatch "dory_mix" {
    stage.dory_mix hidden(%h : memref<300xf32>) entry(%in : memref<300xf32>) state(%st : memref<300xf32>) {mode = 2 : i64, eps = 1.0e-06 : f32}
  }
  return
}

// -----

// CHECK-LABEL: func.func @read_out
// CHECK: scf.for %[[I:.*]] = %thread_id_x to %c300 step %c256 iter_args({{.*}}) -> (f32) {
// CHECK-NEXT: memref.load %arg0[%[[I]]] : memref<300xf32>
// CHECK-NOT: memref.store
// CHECK: scf.yield
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: scf.for %[[J:.*]] = %thread_id_x{{.*}} to %c300{{.*}} step %c256{{.*}} {
// CHECK-NEXT: %[[H:.*]] = memref.load %arg0[%[[J]]] : memref<300xf32>
// CHECK-NEXT: %[[U:.*]] = arith.mulf %[[H]], %[[INV]] : f32
// CHECK-NEXT: memref.store %[[U]], %arg0[%[[J]]] : memref<300xf32>
// CHECK-NEXT: memref.store %[[U]], %arg2[%[[J]]] : memref<300xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @read_out(%h: memref<300xf32>, %in: memref<300xf32>, %st: memref<300xf32>) {
  stage.dispatch "dory_mix" {
    stage.dory_mix hidden(%h : memref<300xf32>) entry(%in : memref<300xf32>) state(%st : memref<300xf32>) {mode = 3 : i64, eps = 1.0e-06 : f32}
  }
  return
}

// -----

// CHECK-LABEL: func.func @resume
// CHECK: scf.for %[[I:.*]] = %thread_id_x to %c300 step %c256 iter_args({{.*}}) -> (f32) {
// CHECK-DAG: %[[ST:.*]] = memref.load %arg2[%[[I]]] : memref<300xf32>
// CHECK-DAG: %[[IN:.*]] = memref.load %arg1[%[[I]]] : memref<300xf32>
// CHECK: %[[Y:.*]] = arith.addf %[[ST]], %[[IN]] : f32
// CHECK-NEXT: memref.store %[[Y]], %arg0[%[[I]]] : memref<300xf32>
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: scf.for %[[J:.*]] = %thread_id_x{{.*}} to %c300{{.*}} step %c256{{.*}} {
// CHECK-NEXT: %[[H:.*]] = memref.load %arg0[%[[J]]] : memref<300xf32>
// CHECK-NEXT: %[[U:.*]] = arith.mulf %[[H]], %[[INV]] : f32
// CHECK-NEXT: memref.store %[[U]], %arg0[%[[J]]] : memref<300xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @resume(%h: memref<300xf32>, %in: memref<300xf32>, %st: memref<300xf32>) {
  stage.dispatch "dory_mix" {
    stage.dory_mix hidden(%h : memref<300xf32>) entry(%in : memref<300xf32>) state(%st : memref<300xf32>) {mode = 4 : i64, eps = 1.0e-06 : f32}
  }
  return
}
