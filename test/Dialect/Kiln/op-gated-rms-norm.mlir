// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.gated_rms_norm: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @gated_rms_norm
// CHECK: [[V0:%[0-9]+]] = kiln.gated_rms_norm %arg0, %arg1, %arg2 {eps = 9.99999997E-7 : f32, heads = 3 : i64} : tensor<36xf32>, tensor<12xf32>
// CHECK-NEXT: return [[V0]] : tensor<36xf32>
func.func @gated_rms_norm(%o: tensor<36xf32>, %z: tensor<36xf32>, %w: tensor<12xf32>) -> tensor<36xf32> {
  %y = kiln.gated_rms_norm %o, %z, %w {eps = 1.0e-06 : f32, heads = 3 : i64} : tensor<36xf32>, tensor<12xf32>
  return %y : tensor<36xf32>
}
