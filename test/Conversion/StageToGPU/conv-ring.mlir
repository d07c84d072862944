// REQUIRES: compiler
// stage.conv_ring: a thread per channel (52 channels in workgroups of the row width, 64:
// one workgroup). Each thread convolves its channel over the 3 ring rows (oldest first)
// and the new input with the 4 taps (tap 3 on the input), stores the output, then shifts
// its column of the ring by one row and appends the input: straight-line code, no loop.
// RUN: kiln-opt %s --convert-stage-to-gpu | FileCheck %s

// CHECK: gpu.launch_func @kiln_kernels::@conv_ring blocks in (%c1{{.*}}, %c1, %c1) threads in (%c64, %c1, %c1)
// CHECK: gpu.func @conv_ring(
// CHECK-NOT: scf.for
// CHECK: %[[X:.*]] = memref.load %arg0[%[[C:.*]]] : memref<52xf32>
// CHECK: memref.load %arg1[%[[C]], %c3] : memref<52x4xf32>
// CHECK: %[[R0:.*]] = memref.load %arg2[%c0, %[[C]]] : memref<3x52xf32>
// CHECK: memref.load %arg1[%[[C]], %c0{{.*}}] : memref<52x4xf32>
// CHECK: %[[R1:.*]] = memref.load %arg2[%c1, %[[C]]] : memref<3x52xf32>
// CHECK: %[[R2:.*]] = memref.load %arg2[%c2, %[[C]]] : memref<3x52xf32>
// CHECK: memref.store %{{.*}}, %arg3[%[[C]]] : memref<52xf32>
// CHECK: memref.store %[[R1]], %arg2[%c0{{.*}}, %[[C]]] : memref<3x52xf32>
// CHECK: memref.store %[[R2]], %arg2[%c1{{.*}}, %[[C]]] : memref<3x52xf32>
// CHECK: memref.store %[[X]], %arg2[%c2{{.*}}, %[[C]]] : memref<3x52xf32>
// CHECK-NOT: scf.for
// CHECK: gpu.return
func.func @f(%x: memref<52xf32>, %t: memref<52x4xf32>, %r: memref<3x52xf32>, %o: memref<52xf32>) {
  stage.dispatch "conv_ring" { stage.conv_ring input(%x : memref<52xf32>) taps(%t : memref<52x4xf32>) ring(%r : memref<3x52xf32>) out(%o : memref<52xf32>) }
  return
}
