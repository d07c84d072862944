// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.top_p_gate: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @top_p_gate
// CHECK: [[V0:%[0-9]+]] = kiln.top_p_gate %arg0, %arg1 : tensor<16xf32>
// CHECK-NEXT: return [[V0]] : f32
func.func @top_p_gate(%lc: tensor<16xf32>, %p: f32) -> f32 {
  %g = kiln.top_p_gate %lc, %p : tensor<16xf32>
  return %g : f32
}
