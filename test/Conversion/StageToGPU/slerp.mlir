// REQUIRES: compiler
// stage.slerp on a 64-wide row: one 256-thread workgroup whose threads hold the row in
// registers (h, update, alpha loaded once each at the index clamped into the row),
// reduce both squared norms in one round (a 2 x 256 buffer), take two rsqrt, reduce the
// result's norm, take a third, and store h once (threads inside the row only).
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@slerp blocks in (%c1{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK: gpu.func @slerp({{.*}}) workgroup(%{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: %[[T:[0-9]+]] = arith.addi %thread_id_x, %c0 : index
// CHECK: %[[I:[0-9]+]] = arith.minui %[[T]], %c63 : index
// CHECK: memref.load %arg0[%[[I]]] : memref<64xf32>
// CHECK: memref.load %arg1[%[[I]]] : memref<64xf32>
// CHECK: memref.load %arg2[%[[I]]] : memref<64xf32>
// CHECK-NOT: memref.load %arg{{[012]}}[
// CHECK: math.rsqrt
// CHECK-NEXT: arith.addf
// CHECK-NEXT: math.rsqrt
// CHECK: math.rsqrt
// CHECK-NOT: math.rsqrt
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %arg0[%[[T]]] : memref<64xf32>
// CHECK-NOT: memref.store %{{.*}}, %arg0
// CHECK: gpu.return
func.func @f(%h: memref<64xf32>, %o: memref<64xf32>, %a: memref<64xf32>) {
  stage.dispatch "slerp" { stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32} }
  return
}
