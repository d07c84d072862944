// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.slerp_residual: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @slerp_residual
// CHECK: [[V0:%[0-9]+]] = kiln.slerp_residual %arg0, %arg1, %arg2 {eps = 9.99999997E-7 : f32} : tensor<64xf32>
// CHECK-NEXT: return [[V0]] : tensor<64xf32>
func.func @slerp_residual(%h: tensor<64xf32>, %o: tensor<64xf32>, %a: tensor<64xf32>) -> tensor<64xf32> {
  %y = kiln.slerp_residual %h, %o, %a {eps = 1.0e-06 : f32} : tensor<64xf32>
  return %y : tensor<64xf32>
}
