// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.ring_attention: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @ring_attention_sinks_group_windows
// CHECK: [[V0:%[0-9]+]] = kiln.ring_attention %arg0, %arg1, %arg2, %arg3 sinks(%arg4, %arg5 : tensor<2x2x16xf32>, tensor<2x2x16xf32>) {group_windows = array<i64: 8, 3>, num_q_heads = 6 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
// CHECK-NEXT: return [[V0]] : tensor<96xf32>
func.func @ring_attention_sinks_group_windows(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %qr: tensor<96xf32>, %q: tensor<96xf32>, %pos: index, %sk: tensor<2x2x16xf32>, %sv: tensor<2x2x16xf32>) -> tensor<96xf32> {
  %o = kiln.ring_attention %r, %qr, %q, %pos sinks(%sk, %sv : tensor<2x2x16xf32>, tensor<2x2x16xf32>) {group_windows = array<i64: 8, 3>, num_q_heads = 6 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return %o : tensor<96xf32>
}

// -----

// CHECK-LABEL: func.func @ring_attention_plain_odd_heads
// CHECK: [[V0:%[0-9]+]] = kiln.ring_attention %arg0, %arg1, %arg2, %arg3 {num_q_heads = 3 : i64, score_floor = 1.200000e+01 : f32} : !kiln.kv_ring<kv_heads = 1, capacity = 5, head_dim = 12>, tensor<36xf32>
// CHECK-NEXT: return [[V0]] : tensor<36xf32>
func.func @ring_attention_plain_odd_heads(%r: !kiln.kv_ring<kv_heads = 1, capacity = 5, head_dim = 12>, %qr: tensor<36xf32>, %q: tensor<36xf32>, %pos: index) -> tensor<36xf32> {
  %o = kiln.ring_attention %r, %qr, %q, %pos {num_q_heads = 3 : i64, score_floor = 1.200000e+01 : f32} : !kiln.kv_ring<kv_heads = 1, capacity = 5, head_dim = 12>, tensor<36xf32>
  return %o : tensor<36xf32>
}
