// REQUIRES: compiler
// stage.prefetch behind a slerp: the slerp keeps workgroup 0 (its one
// workgroup, 256 threads), the prefetch of groups [96, 6096) takes
// ceil(6000 / (256 x 8)) = 3 more; thread t of prefetch workgroup w loads
// groups 96 + 2048w + t + 256k (k < 8), a group past the range loading group 96
// again; the words fold into one by xor and reach the sink only when it equals
// the constant. The launch names the arguments only the prefetch binds.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@slerp blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK-SAME: {stage.prefetch_only_args = array<i64: 3, 4>}
// CHECK: gpu.func @slerp(
// CHECK: %[[WG:.*]] = gpu.block_id x
// CHECK: %[[STAGES:.*]] = arith.cmpi ult, %[[WG]], %c1 : index
// CHECK-NEXT: scf.if %[[STAGES]] {
// CHECK: math.rsqrt
// CHECK: } else {
// CHECK: %[[LOCAL:.*]] = arith.subi %[[WG]], %{{.*}} : index
// CHECK: arith.cmpi ult, %[[LOCAL]], %c3 : index
// CHECK: arith.muli %[[LOCAL]], %c2048 : index
// CHECK-COUNT-8: memref.load %arg3[%{{.*}}, %{{.*}}] : memref<100x64xvector<4xi32>>
// CHECK-NOT: memref.load
// CHECK-COUNT-31: arith.xori
// CHECK: %[[FOLDED:.*]] = arith.xori
// CHECK: %[[MATCH:.*]] = arith.cmpi eq, %[[FOLDED]], %c1592598101_i32 : i32
// CHECK-NEXT: scf.if %[[MATCH]] {
// CHECK: memref.store %[[FOLDED]], %arg4[%{{.*}}] : memref<4xi32>
// CHECK: gpu.return
func.func @f(%h: memref<64xf32>, %o: memref<64xf32>, %a: memref<64xf32>,
             %w: memref<100x64xvector<4xi32>>, %sink: memref<4xi32>) {
  stage.dispatch "slerp" {
    stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>) alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
    stage.prefetch source(%w : memref<100x64xvector<4xi32>>) sink(%sink : memref<4xi32>) {first_group = 96, groups = 6000}
  }
  return
}
