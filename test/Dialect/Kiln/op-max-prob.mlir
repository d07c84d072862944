// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.max_prob: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @max_prob
// CHECK: [[V0:%[0-9]+]] = kiln.max_prob %arg0 : tensor<256xf32>
// CHECK-NEXT: return [[V0]] : f32
func.func @max_prob(%a: tensor<256xf32>) -> f32 {
  %p = kiln.max_prob %a : tensor<256xf32>
  return %p : f32
}
