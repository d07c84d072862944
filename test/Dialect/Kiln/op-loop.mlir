// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.loop: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @loop_with_exit
// CHECK: [[V0:%[0-9]+]] = kiln.loop %arg1, %arg0 passes(3) exit_threshold(0.899999976) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
// CHECK-NEXT: ^bb0(%h: tensor<64xf32>, %pass: index):
// CHECK-NEXT: [[V1:%[0-9]+]] = kiln.slerp_residual %h, %arg2, %arg2 {eps = 9.99999997E-7 : f32} : tensor<64xf32>
// CHECK-NEXT: kiln.yield [[V1]] : tensor<64xf32>
// CHECK-NEXT: } readout {
// CHECK-NEXT: ^bb0(%h: tensor<64xf32>):
// CHECK-NEXT: [[LP:%[0-9]+]] = kiln.log_softmax %h : tensor<64xf32>
// CHECK-NEXT: [[P:%[0-9]+]] = kiln.max_prob [[LP]] : tensor<64xf32>
// CHECK-NEXT: kiln.yield [[P]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: return [[V0]] : tensor<64xf32>
func.func @loop_with_exit(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>, %a: tensor<64xf32>) -> tensor<64xf32> {
  %y = kiln.loop %h, %s passes(3) exit_threshold(9.000000e-01) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>, %p: index):
    %x1 = kiln.slerp_residual %x, %a, %a {eps = 1.0e-06 : f32} : tensor<64xf32>
    kiln.yield %x1 : tensor<64xf32>
  } readout {
  ^bb0(%x: tensor<64xf32>):
    %lp = kiln.log_softmax %x : tensor<64xf32>
    %pr = kiln.max_prob %lp : tensor<64xf32>
    kiln.yield %pr : f32
  }
  return %y : tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @loop_no_exit
// CHECK: [[V0:%[0-9]+]] = kiln.loop %arg1, %arg0 passes(1) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
// CHECK-NEXT: ^bb0(%h: tensor<64xf32>, %pass: index):
// CHECK-NEXT: kiln.yield %h : tensor<64xf32>
// CHECK-NEXT: }
// CHECK-NOT: readout
// CHECK-NEXT: return [[V0]] : tensor<64xf32>
func.func @loop_no_exit(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) -> tensor<64xf32> {
  %y = kiln.loop %h, %s passes(1) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>, %p: index):
    kiln.yield %x : tensor<64xf32>
  }
  return %y : tensor<64xf32>
}
