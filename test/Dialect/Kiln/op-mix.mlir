// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.mix: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @mix_enter
// CHECK: [[V0:%[0-9]+]] = kiln.mix enter %arg0, %arg1 {eps = 9.99999997E-7 : f32} : !kiln.loop_state<hidden = 64>, tensor<64xf32>
// CHECK-NEXT: return [[V0]] : tensor<64xf32>
func.func @mix_enter(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) -> tensor<64xf32> {
  %y = kiln.mix enter %s, %h {eps = 1.0e-06 : f32} : !kiln.loop_state<hidden = 64>, tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @mix_between
// CHECK: [[V0:%[0-9]+]] = kiln.mix between %arg0, %arg1 {eps = 9.99999997E-7 : f32} : !kiln.loop_state<hidden = 64>, tensor<64xf32>
// CHECK-NEXT: return [[V0]] : tensor<64xf32>
func.func @mix_between(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) -> tensor<64xf32> {
  %y = kiln.mix between %s, %h {eps = 1.0e-06 : f32} : !kiln.loop_state<hidden = 64>, tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @mix_leave
// CHECK: [[V0:%[0-9]+]] = kiln.mix leave %arg0, %arg1 {eps = 9.99999997E-7 : f32} : !kiln.loop_state<hidden = 64>, tensor<64xf32>
// CHECK-NEXT: return [[V0]] : tensor<64xf32>
func.func @mix_leave(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) -> tensor<64xf32> {
  %y = kiln.mix leave %s, %h {eps = 1.0e-06 : f32} : !kiln.loop_state<hidden = 64>, tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @mix_exit_readout
// CHECK: [[V0:%[0-9]+]] = kiln.mix exit_readout %arg0, %arg1 {eps = 9.99999997E-7 : f32} : !kiln.loop_state<hidden = 64>, tensor<64xf32>
// CHECK-NEXT: return [[V0]] : tensor<64xf32>
func.func @mix_exit_readout(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) -> tensor<64xf32> {
  %y = kiln.mix exit_readout %s, %h {eps = 1.0e-06 : f32} : !kiln.loop_state<hidden = 64>, tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @mix_resume
// CHECK: [[V0:%[0-9]+]] = kiln.mix resume %arg0, %arg1 {eps = 9.99999997E-7 : f32} : !kiln.loop_state<hidden = 64>, tensor<64xf32>
// CHECK-NEXT: return [[V0]] : tensor<64xf32>
func.func @mix_resume(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) -> tensor<64xf32> {
  %y = kiln.mix resume %s, %h {eps = 1.0e-06 : f32} : !kiln.loop_state<hidden = 64>, tensor<64xf32>
  return %y : tensor<64xf32>
}
