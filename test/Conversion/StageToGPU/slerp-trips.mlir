// REQUIRES: compiler
// stage.slerp on a 1,100-wide row at 32 threads (34-35 values a thread, past the 16 a
// thread holds): three walks in trips of 16 elements a thread, each trip's loads issued
// before its arithmetic (KernelBuilder::stridedTrips). Two full trips of 512 columns run
// as a loop, then one trip of the last 76 columns, straight-line, whose third element a
// thread is range-checked (76 < 3 x 32). Walk 1 sums h² and o² (a loop carrying two
// f32s), walk 2 stores y and sums y² (one f32), walk 3 scales h in place (a loop carrying
// nothing: scf.for builds its own yield).
// RUN: kiln-opt %s --convert-stage-to-gpu="reduce-workgroup-size=32" | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@slerp blocks in (%c1{{.*}}, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK: scf.for %{{.*}} = %c0 to %c1024 step %c512 iter_args({{.*}}) -> (f32, f32) {
// The trip: 16 loads of h and o each, no arithmetic between them.
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg0
// CHECK-NOT: arith.mulf
// CHECK: memref.load %arg1
// CHECK: scf.yield
// CHECK: arith.cmpi ult, %{{.*}}, %c1100 : index
// CHECK-NOT: arith.cmpi ult, %{{.*}}, %c1100 : index
// CHECK: math.rsqrt
// CHECK: math.rsqrt
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c1024{{.*}} step %c512{{.*}} iter_args({{.*}}) -> (f32) {
// CHECK-COUNT-16: memref.store %{{.*}}, %arg0
// CHECK: scf.yield
// CHECK: math.rsqrt
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c1024{{.*}} step %c512{{.*}} {
// CHECK-COUNT-16: memref.load %arg0
// CHECK-COUNT-16: memref.store %{{.*}}, %arg0
// CHECK: }
// CHECK-COUNT-3: memref.load %arg0
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %arg0
// CHECK: gpu.return
func.func @f(%h: memref<1100xf32>, %o: memref<1100xf32>, %a: memref<1100xf32>) {
  stage.dispatch "slerp" { stage.slerp hidden(%h : memref<1100xf32>) update(%o : memref<1100xf32>) alpha(%a : memref<1100xf32>) {eps = 1.0e-06 : f32} }
  return
}
