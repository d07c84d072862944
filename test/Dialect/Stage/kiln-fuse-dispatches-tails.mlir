// REQUIRES: compiler
// kiln-fuse-dispatches' last-workgroup tails (Inputs/fuse-tails.json: device
// 100 GB/s, one workgroup 4 GB/s, a boundary 5 µs, 0.5 µs without a barrier).
// The slerp reads the projection's 256 rows; a norm under another skip
// condition (so it fuses with neither) sits between them. The partition keeps
// all three apart; then the slerp moves up past the norm, which it does not
// touch, and becomes the projection's tail: 0.340 (projection) + 0.5 (the
// counter, priced as an unbarriered boundary) + 4 x 1.024 (the slerp's 4 KB at
// 4 GB/s, at a quarter of its own width's speed) + 5 = 9.936 µs, where apart
// the two cost 5.340 + 6.024. The function gains the 16-byte counter as a
// state buffer. With fuse-boundary-5us.json (no cheaper unbarriered boundary)
// and with the switch off (the default), nothing changes.
// RUN: kiln-opt %s --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-tails.json last-workgroup-tails=true emit-report=true" 2>&1 | FileCheck %s
// RUN: kiln-opt %s --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-tails.json emit-report=true" 2>&1 | FileCheck %s --check-prefix=APART
// RUN: kiln-opt %s --kiln-fuse-dispatches="target-file=%S/Inputs/fuse-boundary-5us.json last-workgroup-tails=true emit-report=true" 2>&1 | FileCheck %s --check-prefix=APART

// CHECK-LABEL: fusion report: target lit-tails
// CHECK:       9.936 us  proj__slerp [matvec, last_workgroup, slerp] last_workgroup
// CHECK-NEXT:  0.692 us  norm [rmsnorm]
// CHECK-NEXT:  total: 2 dispatches, 4 stages, 10.628 us per token (estimate)
// CHECK-LABEL: func.func @residual
// CHECK-SAME:  %[[C:[a-z0-9]+]]: memref<4xi32> {stage.buffer = #stage.buffer<kind = state, name = "last_workgroup.counter", byte_size = 16>})
// CHECK:       stage.dispatch "proj__slerp" attributes {fusion = "last_workgroup"
// CHECK-NEXT:    stage.matvec
// CHECK-NEXT:    stage.last_workgroup counter(%[[C]] : memref<4xi32>)
// CHECK-NEXT:    stage.slerp
// CHECK-NEXT:  {{^ *}$}}
// CHECK-NEXT:  stage.dispatch "norm"

// APART:       us  proj [matvec]
// APART-NEXT:  us  norm [rmsnorm]
// APART-NEXT:  us  slerp [slerp]
// APART-NEXT:  total: 3 dispatches, 3 stages
// APART-NOT:   last_workgroup
func.func @residual(%m: memref<256x8xvector<4xi32>>, %x: memref<64xf32>, %o: memref<256xf32>,
                    %h: memref<256xf32>, %a: memref<256xf32>,
                    %r: memref<64xf32>, %w: memref<64xf32>, %n: memref<64xf32>,
                    %f: memref<1xi32>) {
  stage.dispatch "proj" {
    stage.matvec weight(%m : memref<256x8xvector<4xi32>>) input(%x : memref<64xf32>) out(%o : memref<256xf32>) {format = #stage.format<f16>}
  }
  stage.dispatch "norm" skip_if(%f : memref<1xi32>)[0] {
    stage.rmsnorm residual(%r : memref<64xf32>) weight(%w : memref<64xf32>) outs(%n : memref<64xf32>) {eps = 1.0e-06 : f32}
  }
  stage.dispatch "slerp" {
    stage.slerp hidden(%h : memref<256xf32>) update(%o : memref<256xf32>) alpha(%a : memref<256xf32>) {eps = 1.0e-06 : f32}
  }
  return
}
