// REQUIRES: compiler
// convert-stage-to-gpu{matvec-scalar-sums=true}: a mat-vec thread sums each
// row in one f32 carried by the group loop (a multiply-add chain over the
// group's 8 halves) instead of four lane sums added by vector.reduction at the
// end; the default keeps the lane sums.
// RUN: kiln-opt %s --convert-stage-to-gpu="matvec-scalar-sums=true" | FileCheck %s --check-prefix=SCALAR
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s --check-prefix=LANES

// SCALAR: gpu.func @matvec_f16(
// SCALAR: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// A thread has one of the 25 groups at 32 threads: a trip loads one group of
// each of the 4 rows.
// SCALAR-COUNT-4: memref.load %arg0[{{.*}}] : memref<72x25xvector<4xi32>>
// SCALAR-NOT: memref.load %arg0
// SCALAR-COUNT-8: arith.mulf %{{[0-9]+}}, %{{[0-9]+}} : f32
// SCALAR-NOT: vector.reduction
// SCALAR: gpu.return
// LANES: gpu.func @matvec_f16(
// LANES: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// LANES: arith.mulf %{{[0-9]+}}, %{{[0-9]+}} : vector<4xf32>
// LANES-COUNT-4: vector.reduction <add>
func.func @plain(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch "matvec_f16" {
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
}
