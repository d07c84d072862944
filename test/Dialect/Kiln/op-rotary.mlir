// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.rotary: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @rotary_partial
// CHECK: [[V0:%[0-9]+]] = kiln.rotary %arg0, %arg1 {head_dim = 16 : i64, heads = 6 : i64, rotary_dim = 8 : i64, theta = 1.000000e+04 : f32} : tensor<96xf32>
// CHECK-NEXT: return [[V0]] : tensor<96xf32>
func.func @rotary_partial(%q: tensor<96xf32>, %pos: index) -> tensor<96xf32> {
  %y = kiln.rotary %q, %pos {head_dim = 16 : i64, heads = 6 : i64, rotary_dim = 8 : i64, theta = 1.000000e+04 : f32} : tensor<96xf32>
  return %y : tensor<96xf32>
}

// -----

// CHECK-LABEL: func.func @rotary_full_odd_heads
// CHECK: [[V0:%[0-9]+]] = kiln.rotary %arg0, %arg1 {head_dim = 12 : i64, heads = 5 : i64, rotary_dim = 12 : i64, theta = 5.000000e+05 : f32} : tensor<60xf32>
// CHECK-NEXT: return [[V0]] : tensor<60xf32>
func.func @rotary_full_odd_heads(%q: tensor<60xf32>, %pos: index) -> tensor<60xf32> {
  %y = kiln.rotary %q, %pos {head_dim = 12 : i64, heads = 5 : i64, rotary_dim = 12 : i64, theta = 5.000000e+05 : f32} : tensor<60xf32>
  return %y : tensor<60xf32>
}
