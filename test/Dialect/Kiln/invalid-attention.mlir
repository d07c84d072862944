// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of rotary, the KV ring and ring attention, one case each.

func.func @f(%q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{heads (0) must be >= 1}}
  %y = kiln.rotary %q, %p {head_dim = 16 : i64, heads = 0 : i64, rotary_dim = 8 : i64, theta = 1.0e4 : f32} : tensor<96xf32>
  return
}

// -----

func.func @f(%q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{head_dim (0) must be >= 1}}
  %y = kiln.rotary %q, %p {head_dim = 0 : i64, heads = 16 : i64, rotary_dim = 4 : i64, theta = 1.0e4 : f32} : tensor<96xf32>
  return
}

// -----

func.func @f(%q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{rotary_dim (7) must be even and in 0..head_dim (16)}}
  %y = kiln.rotary %q, %p {head_dim = 16 : i64, heads = 6 : i64, rotary_dim = 7 : i64, theta = 1.0e4 : f32} : tensor<96xf32>
  return
}

// -----

func.func @f(%q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{rotary_dim (20) must be even and in 0..head_dim (16)}}
  %y = kiln.rotary %q, %p {head_dim = 16 : i64, heads = 6 : i64, rotary_dim = 20 : i64, theta = 1.0e4 : f32} : tensor<96xf32>
  return
}

// -----

func.func @f(%q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{theta must be > 0}}
  %y = kiln.rotary %q, %p {head_dim = 16 : i64, heads = 6 : i64, rotary_dim = 8 : i64, theta = 0.0 : f32} : tensor<96xf32>
  return
}

// -----

func.func @f(%q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{input has 96 values, expected 80 (heads*head_dim)}}
  %y = kiln.rotary %q, %p {head_dim = 16 : i64, heads = 5 : i64, rotary_dim = 8 : i64, theta = 1.0e4 : f32} : tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %k: tensor<48xf32>, %p: index) {
  // expected-error @+1 {{key has 48 values, expected 32 (kv_heads*head_dim)}}
  kiln.kv_ring_write %r, %k, %k, %p : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<48xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<48xf32>, %p: index) {
  // expected-error @+1 {{num_q_heads (3) must be a multiple of the KV heads (2)}}
  %o = kiln.ring_attention %r, %q, %q, %p {num_q_heads = 3 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<48xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{num_q_heads (0) must be >= 1}}
  %o = kiln.ring_attention %r, %q, %q, %p {num_q_heads = 0 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{query has 96 values, expected 64 (num_q_heads*head_dim)}}
  %o = kiln.ring_attention %r, %q, %q, %p {num_q_heads = 4 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{score_floor must be > 0}}
  %o = kiln.ring_attention %r, %q, %q, %p {num_q_heads = 6 : i64, score_floor = 0.0 : f32} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index, %s: tensor<2x2x16xf32>) {
  // expected-error @+1 {{sinks must be (sink_k, sink_v), got 1 operands}}
  %o = kiln.ring_attention %r, %q, %q, %p sinks(%s : tensor<2x2x16xf32>) {num_q_heads = 6 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index, %s: tensor<2x16xf32>) {
  // expected-error @+1 {{sink_k must be [kv_heads, num_sinks >= 1, head_dim]}}
  %o = kiln.ring_attention %r, %q, %q, %p sinks(%s, %s : tensor<2x16xf32>, tensor<2x16xf32>) {num_q_heads = 6 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index, %s: tensor<2x2x16xf32>, %v: tensor<2x3x16xf32>) {
  // expected-error @+1 {{sink_v has shape [2, 3, 16], expected [2, 2, 16]}}
  %o = kiln.ring_attention %r, %q, %q, %p sinks(%s, %v : tensor<2x2x16xf32>, tensor<2x3x16xf32>) {num_q_heads = 6 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index, %s: tensor<3x2x16xf32>) {
  // expected-error @+1 {{sink_k has shape [3, 2, 16], expected [2, 2, 16]}}
  %o = kiln.ring_attention %r, %q, %q, %p sinks(%s, %s : tensor<3x2x16xf32>, tensor<3x2x16xf32>) {num_q_heads = 6 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{group_windows has 3 entries, expected one per KV head (2)}}
  %o = kiln.ring_attention %r, %q, %q, %p {group_windows = array<i64: 8, 4, 2>, num_q_heads = 6 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{group_windows[1] (0) must be in 1..capacity (8)}}
  %o = kiln.ring_attention %r, %q, %q, %p {group_windows = array<i64: 8, 0>, num_q_heads = 6 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{group_windows[0] (9) must be in 1..capacity (8)}}
  %o = kiln.ring_attention %r, %q, %q, %p {group_windows = array<i64: 9, 4>, num_q_heads = 6 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}
