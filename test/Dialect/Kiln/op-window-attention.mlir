// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.window_attention: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @window_attention_far
// CHECK: [[V0:%[0-9]+]] = kiln.window_attention %arg0, %arg1, %arg2 far(%arg3 : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>) {num_q_heads = 6 : i64, rectify, scale = 4.000000e+00 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
// CHECK-NEXT: return [[V0]] : tensor<96xf32>
func.func @window_attention_far(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %pos: index, %ff: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>) -> tensor<96xf32> {
  %o = kiln.window_attention %r, %q, %pos far(%ff : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>) {num_q_heads = 6 : i64, rectify, scale = 4.000000e+00 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return %o : tensor<96xf32>
}

// -----

// CHECK-LABEL: func.func @window_attention_near_only
// CHECK: [[V0:%[0-9]+]] = kiln.window_attention %arg0, %arg1, %arg2 {num_q_heads = 2 : i64, scale = 2.500000e-01 : f32, window = 5 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<32xf32>
// CHECK-NEXT: return [[V0]] : tensor<32xf32>
func.func @window_attention_near_only(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<32xf32>, %pos: index) -> tensor<32xf32> {
  %o = kiln.window_attention %r, %q, %pos {num_q_heads = 2 : i64, scale = 2.500000e-01 : f32, window = 5 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<32xf32>
  return %o : tensor<32xf32>
}

// -----

// Sinks (issue 15): sink_k, sink_v [kv_heads, ns, head_dim] before the far field.
// CHECK-LABEL: func.func @window_attention_sinks_far
// CHECK: [[V0:%[0-9]+]] = kiln.window_attention %arg0, %arg1, %arg2 sinks(%arg4, %arg4 : tensor<2x3x16xf32>, tensor<2x3x16xf32>) far(%arg3 : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>) {num_q_heads = 6 : i64, rectify, scale = 4.000000e+00 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
// CHECK-NEXT: return [[V0]] : tensor<96xf32>
func.func @window_attention_sinks_far(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %pos: index, %ff: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, %s: tensor<2x3x16xf32>) -> tensor<96xf32> {
  %o = kiln.window_attention %r, %q, %pos sinks(%s, %s : tensor<2x3x16xf32>, tensor<2x3x16xf32>) far(%ff : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>) {num_q_heads = 6 : i64, rectify, scale = 4.000000e+00 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return %o : tensor<96xf32>
}

// -----

// CHECK-LABEL: func.func @window_attention_sinks_near_only
// CHECK: [[V0:%[0-9]+]] = kiln.window_attention %arg0, %arg1, %arg2 sinks(%arg3, %arg3 : tensor<2x1x16xf32>, tensor<2x1x16xf32>) {num_q_heads = 2 : i64, scale = 2.500000e-01 : f32, window = 5 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<32xf32>
func.func @window_attention_sinks_near_only(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<32xf32>, %pos: index, %s: tensor<2x1x16xf32>) -> tensor<32xf32> {
  %o = kiln.window_attention %r, %q, %pos sinks(%s, %s : tensor<2x1x16xf32>, tensor<2x1x16xf32>) {num_q_heads = 2 : i64, scale = 2.500000e-01 : f32, window = 5 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<32xf32>
  return %o : tensor<32xf32>
}
