// REQUIRES: compiler
// stage.dory_mix on a 300-wide row (two elements a thread for some of the 256 threads,
// the second past the row for the others): one workgroup, one 256-float reduction
// buffer, no loop. Each pass over the row loads a thread's two elements first (the
// second clamped into the row and selected to 0 past it), then visits them in order,
// storing the second only inside the row. Per mode, which of h / in / st each pass
// reads and writes, and how many norms it takes (a reduction of 10 barriers and an
// rsqrt each): mode 0 copies h to in and st and normalises h + h; mode 1 normalises h
// into st, then h = unit(st + in) (two norms); modes 2 and 3 normalise h in place (3
// also into st); mode 4 normalises st + in into h. Only the named outputs are stored,
// each once a pass.
// RUN: kiln-opt %s -split-input-file --convert-stage-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @enter
// CHECK: gpu.launch_func @kiln_kernels::@dory_mix blocks in (%c1{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @dory_mix({{.*}}) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// CHECK-NOT: scf.for
// CHECK: %[[I0:.*]] = arith.addi %c0, %thread_id_x : index
// CHECK-NEXT: %[[H0:.*]] = memref.load %arg0[%[[I0]]] : memref<300xf32>
// CHECK: %[[I1:.*]] = arith.addi %c256, %thread_id_x : index
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[I1]], %c300 : index
// CHECK: %[[C1:.*]] = arith.minui %[[I1]], %c299 : index
// CHECK-NEXT: %[[R1:.*]] = memref.load %arg0[%[[C1]]] : memref<300xf32>
// CHECK: %[[H1:.*]] = arith.select %[[IN1]], %[[R1]], %{{.*}} : f32
// CHECK-NEXT: memref.store %[[H0]], %arg1[%[[I0]]] : memref<300xf32>
// CHECK-NEXT: memref.store %[[H0]], %arg2[%[[I0]]] : memref<300xf32>
// CHECK-NEXT: %[[Y0:.*]] = arith.addf %[[H0]], %[[H0]] : f32
// CHECK-NEXT: memref.store %[[Y0]], %arg0[%[[I0]]] : memref<300xf32>
// CHECK: scf.if %[[IN1]] {
// CHECK-NEXT: memref.store %[[H1]], %arg1[%[[I1]]] : memref<300xf32>
// CHECK: scf.if %[[IN1]] {
// CHECK-NEXT: memref.store %[[H1]], %arg2[%[[I1]]] : memref<300xf32>
// CHECK: %[[Y1:.*]] = arith.addf %[[H1]], %[[H1]] : f32
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK-NEXT: memref.store %[[Y1]], %arg0[%[[I1]]] : memref<300xf32>
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: %[[V0:.*]] = memref.load %arg0[%[[K0:.*]]] : memref<300xf32>
// CHECK: %[[K1:.*]] = arith.addi %c256{{.*}}, %thread_id_x{{.*}} : index
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[K1]], %c300{{.*}} : index
// CHECK: %[[C1:.*]] = arith.minui %[[K1]], %c299{{.*}} : index
// CHECK-NEXT: %[[R1:.*]] = memref.load %arg0[%[[C1]]] : memref<300xf32>
// CHECK: %[[V1:.*]] = arith.select %[[IN1]], %[[R1]], %{{.*}} : f32
// CHECK-NEXT: %[[W0:.*]] = arith.mulf %[[V0]], %[[INV]] : f32
// CHECK-NEXT: memref.store %[[W0]], %arg0[%[[K0]]] : memref<300xf32>
// CHECK-NEXT: %[[W1:.*]] = arith.mulf %[[V1]], %[[INV]] : f32
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK-NEXT: memref.store %[[W1]], %arg0[%[[K1]]] : memref<300xf32>
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
// CHECK-NOT: scf.for
// CHECK: %[[H0:.*]] = memref.load %arg0[%{{.*}}] : memref<300xf32>
// CHECK: %[[H1:.*]] = arith.select
// CHECK-NEXT: arith.mulf %[[H0]], %[[H0]] : f32
// CHECK-NOT: memref.store {{.*}} memref<300xf32>
// CHECK: arith.mulf %[[H1]], %[[H1]] : f32
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[INVH:.*]] = math.rsqrt
// CHECK: %[[J0:.*]] = arith.addi %c0{{.*}}, %thread_id_x{{.*}} : index
// CHECK-NEXT: %[[H0:.*]] = memref.load %arg0[%[[J0]]] : memref<300xf32>
// CHECK-NEXT: %[[E0:.*]] = memref.load %arg1[%[[J0]]] : memref<300xf32>
// CHECK: %[[J1:.*]] = arith.addi %c256{{.*}}, %thread_id_x{{.*}} : index
// CHECK: %[[H1:.*]] = arith.select
// CHECK: %[[E1:.*]] = arith.select
// CHECK-NEXT: %[[U0:.*]] = arith.mulf %[[H0]], %[[INVH]] : f32
// CHECK-NEXT: memref.store %[[U0]], %arg2[%[[J0]]] : memref<300xf32>
// CHECK-NEXT: %[[Y0:.*]] = arith.addf %[[U0]], %[[E0]] : f32
// CHECK-NEXT: memref.store %[[Y0]], %arg0[%[[J0]]] : memref<300xf32>
// CHECK: %[[U1:.*]] = arith.mulf %[[H1]], %[[INVH]] : f32
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store %[[U1]], %arg2[%[[J1]]] : memref<300xf32>
// CHECK: %[[Y1:.*]] = arith.addf %[[U1]], %[[E1]] : f32
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store %[[Y1]], %arg0[%[[J1]]] : memref<300xf32>
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: %[[V0:.*]] = memref.load %arg0[%[[K0:.*]]] : memref<300xf32>
// CHECK: %[[K1:.*]] = arith.addi %c256{{.*}}, %thread_id_x{{.*}} : index
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[K1]], %c300{{.*}} : index
// CHECK: %[[C1:.*]] = arith.minui %[[K1]], %c299{{.*}} : index
// CHECK-NEXT: %[[R1:.*]] = memref.load %arg0[%[[C1]]] : memref<300xf32>
// CHECK: %[[V1:.*]] = arith.select %[[IN1]], %[[R1]], %{{.*}} : f32
// CHECK-NEXT: %[[W0:.*]] = arith.mulf %[[V0]], %[[INV]] : f32
// CHECK-NEXT: memref.store %[[W0]], %arg0[%[[K0]]] : memref<300xf32>
// CHECK-NEXT: %[[W1:.*]] = arith.mulf %[[V1]], %[[INV]] : f32
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK-NEXT: memref.store %[[W1]], %arg0[%[[K1]]] : memref<300xf32>
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
// CHECK-NOT: scf.for
// CHECK: %[[H0:.*]] = memref.load %arg0[%{{.*}}] : memref<300xf32>
// CHECK: %[[H1:.*]] = arith.select
// CHECK-NEXT: arith.mulf %[[H0]], %[[H0]] : f32
// CHECK-NOT: memref.store {{.*}} memref<300xf32>
// CHECK: arith.mulf %[[H1]], %[[H1]] : f32
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: %[[H0:.*]] = memref.load %arg0[%[[J0:.*]]] : memref<300xf32>
// CHECK: %[[J1:.*]] = arith.addi %c256{{.*}}, %thread_id_x{{.*}} : index
// CHECK: %[[H1:.*]] = arith.select
// CHECK-NEXT: %[[U0:.*]] = arith.mulf %[[H0]], %[[INV]] : f32
// CHECK-NEXT: memref.store %[[U0]], %arg0[%[[J0]]] : memref<300xf32>
// CHECK-NEXT: %[[U1:.*]] = arith.mulf %[[H1]], %[[INV]] : f32
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store %[[U1]], %arg0[%[[J1]]] : memref<300xf32>
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
// CHECK-NOT: scf.for
// CHECK: %[[H0:.*]] = memref.load %arg0[%{{.*}}] : memref<300xf32>
// CHECK: %[[H1:.*]] = arith.select
// CHECK-NEXT: arith.mulf %[[H0]], %[[H0]] : f32
// CHECK-NOT: memref.store {{.*}} memref<300xf32>
// CHECK: arith.mulf %[[H1]], %[[H1]] : f32
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: %[[H0:.*]] = memref.load %arg0[%[[J0:.*]]] : memref<300xf32>
// CHECK: %[[J1:.*]] = arith.addi %c256{{.*}}, %thread_id_x{{.*}} : index
// CHECK: %[[H1:.*]] = arith.select
// CHECK-NEXT: %[[U0:.*]] = arith.mulf %[[H0]], %[[INV]] : f32
// CHECK-NEXT: memref.store %[[U0]], %arg0[%[[J0]]] : memref<300xf32>
// CHECK-NEXT: memref.store %[[U0]], %arg2[%[[J0]]] : memref<300xf32>
// CHECK-NEXT: %[[U1:.*]] = arith.mulf %[[H1]], %[[INV]] : f32
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store %[[U1]], %arg0[%[[J1]]] : memref<300xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store %[[U1]], %arg2[%[[J1]]] : memref<300xf32>
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
// CHECK-NOT: scf.for
// CHECK: %[[S0:.*]] = memref.load %arg2[%[[I0:.*]]] : memref<300xf32>
// CHECK-NEXT: %[[E0:.*]] = memref.load %arg1[%[[I0]]] : memref<300xf32>
// CHECK: %[[S1:.*]] = arith.select
// CHECK: %[[E1:.*]] = arith.select
// CHECK-NEXT: %[[Y0:.*]] = arith.addf %[[S0]], %[[E0]] : f32
// CHECK-NEXT: memref.store %[[Y0]], %arg0[%[[I0]]] : memref<300xf32>
// CHECK-NOT: memref.store {{.*}}, %arg1
// CHECK-NOT: memref.store {{.*}}, %arg2
// CHECK: arith.addf %[[S1]], %[[E1]] : f32
// CHECK-COUNT-10: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: %[[V0:.*]] = memref.load %arg0[%[[K0:.*]]] : memref<300xf32>
// CHECK: %[[K1:.*]] = arith.addi %c256{{.*}}, %thread_id_x{{.*}} : index
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[K1]], %c300{{.*}} : index
// CHECK: %[[C1:.*]] = arith.minui %[[K1]], %c299{{.*}} : index
// CHECK-NEXT: %[[R1:.*]] = memref.load %arg0[%[[C1]]] : memref<300xf32>
// CHECK: %[[V1:.*]] = arith.select %[[IN1]], %[[R1]], %{{.*}} : f32
// CHECK-NEXT: %[[W0:.*]] = arith.mulf %[[V0]], %[[INV]] : f32
// CHECK-NEXT: memref.store %[[W0]], %arg0[%[[K0]]] : memref<300xf32>
// CHECK-NEXT: %[[W1:.*]] = arith.mulf %[[V1]], %[[INV]] : f32
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK-NEXT: memref.store %[[W1]], %arg0[%[[K1]]] : memref<300xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @resume(%h: memref<300xf32>, %in: memref<300xf32>, %st: memref<300xf32>) {
  stage.dispatch "dory_mix" {
    stage.dory_mix hidden(%h : memref<300xf32>) entry(%in : memref<300xf32>) state(%st : memref<300xf32>) {mode = 4 : i64, eps = 1.0e-06 : f32}
  }
  return
}
