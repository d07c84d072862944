// REQUIRES: compiler
// convert-stage-to-gpu{matvec-stage-input}: a mat-vec workgroup forms its activation
// (here x * 1/rms * g over 70 columns, padded to 72 floats) once into workgroup memory,
// its three elements a thread loaded before the products and stored behind one barrier
// (the third range-checked: 64 + t < 70), and every item of its walk (grid limit 5
// over 18 items) reads the staged columns, four a group half, not x or g.
// An input past half the workgroup memory (here 512 bytes) is not staged; without the
// option nothing is.
// RUN: kiln-opt %s --convert-stage-to-gpu="matvec-grid-limit=5 matvec-stage-input=true" | FileCheck %s
// RUN: kiln-opt %s --convert-stage-to-gpu="matvec-grid-limit=5 matvec-stage-input=true max-workgroup-memory-bytes=512" | FileCheck %s --check-prefix=SMALL
// RUN: kiln-opt %s --convert-stage-to-gpu="matvec-grid-limit=5" | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: gpu.func @normed(
// CHECK-SAME: %[[X:arg1]]: memref<70xf32>, %[[G:arg2]]: memref<70xf32>
// CHECK-SAME: %[[STAGED:arg5]] : memref<72xf32, #gpu.address_space<workgroup>>
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK: memref.load %[[X]]
// CHECK-NEXT: memref.load %[[G]]
// CHECK: memref.load %[[X]]
// CHECK-NEXT: memref.load %[[G]]
// CHECK: %[[C64:.*]] = arith.addi %c64{{.*}}, %thread_id_x
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[C64]], %c70
// CHECK: memref.load %[[X]]
// CHECK-NEXT: memref.load %[[G]]
// CHECK: memref.store %{{.*}}, %[[STAGED]]
// CHECK-NEXT: memref.store %{{.*}}, %[[STAGED]]
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: memref.store %{{.*}}, %[[STAGED]][%[[C64]]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: %[[ID:.*]] = gpu.block_id x
// CHECK: scf.for %{{.*}} = %[[ID]] to %c18{{.*}} step %c5
// CHECK-NOT: memref.load %[[X]]
// CHECK-NOT: memref.load %[[G]]
// CHECK: memref.load %[[STAGED]]
// CHECK: vector.from_elements
// CHECK-NOT: memref.load %[[X]]
// CHECK-NOT: memref.load %[[G]]
// CHECK: gpu.return
// SMALL-LABEL: gpu.func @normed(
// SMALL-NOT: memref<72xf32, #gpu.address_space<workgroup>>
// SMALL: gpu.return
// OFF-LABEL: gpu.func @normed(
// OFF-NOT: memref<72xf32, #gpu.address_space<workgroup>>
// OFF: gpu.return
func.func @normed(%w: memref<72x9xvector<4xi32>>, %x: memref<70xf32>, %g: memref<70xf32>, %y: memref<72xf32>) {
  stage.dispatch "normed" {
    stage.matvec weight(%w : memref<72x9xvector<4xi32>>) input(%x : memref<70xf32>) norm(%g : memref<70xf32>) out(%y : memref<72xf32>) {format = #stage.format<f16>, norm_eps = 1.0e-6 : f32}
  }
  return
}
