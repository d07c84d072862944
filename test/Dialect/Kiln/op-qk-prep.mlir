// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.qk_prep: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @qk_prep
// CHECK: %query_out, %key_out = kiln.qk_prep %arg0, %arg1, %arg2 {eps = 9.99999997E-7 : f32, head_dim = 16 : i64, num_kv_heads = 2 : i64, num_q_heads = 6 : i64} : tensor<96xf32>, tensor<32xf32>, tensor<6x16xf32>
// CHECK-NEXT: return %query_out : tensor<96xf32>
func.func @qk_prep(%q: tensor<96xf32>, %k: tensor<32xf32>, %s: tensor<6x16xf32>) -> tensor<96xf32> {
  %qn, %kn = kiln.qk_prep %q, %k, %s {eps = 1.0e-06 : f32, head_dim = 16 : i64, num_kv_heads = 2 : i64, num_q_heads = 6 : i64} : tensor<96xf32>, tensor<32xf32>, tensor<6x16xf32>
  return %qn : tensor<96xf32>
}
