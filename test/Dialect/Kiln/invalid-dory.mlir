// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of Dory's q/k prep, window attention, far field and slerp, one case each.

func.func @f(%q: tensor<96xf32>, %k: tensor<32xf32>, %s: tensor<6x16xf32>) {
  // expected-error @+1 {{num_kv_heads (0) must be >= 1}}
  %a, %b = kiln.qk_prep %q, %k, %s {eps = 1.0e-06 : f32, head_dim = 16 : i64, num_kv_heads = 0 : i64, num_q_heads = 6 : i64} : tensor<96xf32>, tensor<32xf32>, tensor<6x16xf32>
  return
}

// -----

func.func @f(%q: tensor<96xf32>, %k: tensor<32xf32>, %s: tensor<6x16xf32>) {
  // expected-error @+1 {{num_q_heads (6) must be a multiple of the KV heads (4)}}
  %a, %b = kiln.qk_prep %q, %k, %s {eps = 1.0e-06 : f32, head_dim = 16 : i64, num_kv_heads = 4 : i64, num_q_heads = 6 : i64} : tensor<96xf32>, tensor<32xf32>, tensor<6x16xf32>
  return
}

// -----

func.func @f(%q: tensor<96xf32>, %k: tensor<32xf32>, %s: tensor<6x16xf32>) {
  // expected-error @+1 {{head_dim (0) must be >= 1}}
  %a, %b = kiln.qk_prep %q, %k, %s {eps = 1.0e-06 : f32, head_dim = 0 : i64, num_kv_heads = 2 : i64, num_q_heads = 6 : i64} : tensor<96xf32>, tensor<32xf32>, tensor<6x16xf32>
  return
}

// -----

func.func @f(%q: tensor<96xf32>, %k: tensor<32xf32>, %s: tensor<6x16xf32>) {
  // expected-error @+1 {{eps must be > 0}}
  %a, %b = kiln.qk_prep %q, %k, %s {eps = 0.0 : f32, head_dim = 16 : i64, num_kv_heads = 2 : i64, num_q_heads = 6 : i64} : tensor<96xf32>, tensor<32xf32>, tensor<6x16xf32>
  return
}

// -----

func.func @f(%q: tensor<64xf32>, %k: tensor<32xf32>, %s: tensor<6x16xf32>) {
  // expected-error @+1 {{query has 64 values, expected 96 (num_q_heads*head_dim)}}
  %a, %b = kiln.qk_prep %q, %k, %s {eps = 1.0e-06 : f32, head_dim = 16 : i64, num_kv_heads = 2 : i64, num_q_heads = 6 : i64} : tensor<64xf32>, tensor<32xf32>, tensor<6x16xf32>
  return
}

// -----

func.func @f(%q: tensor<96xf32>, %k: tensor<48xf32>, %s: tensor<6x16xf32>) {
  // expected-error @+1 {{key has 48 values, expected 32 (num_kv_heads*head_dim)}}
  %a, %b = kiln.qk_prep %q, %k, %s {eps = 1.0e-06 : f32, head_dim = 16 : i64, num_kv_heads = 2 : i64, num_q_heads = 6 : i64} : tensor<96xf32>, tensor<48xf32>, tensor<6x16xf32>
  return
}

// -----

func.func @f(%q: tensor<96xf32>, %k: tensor<32xf32>, %s: tensor<96xf32>) {
  // expected-error @+1 {{qk_scale has shape [96], expected [6, 16]}}
  %a, %b = kiln.qk_prep %q, %k, %s {eps = 1.0e-06 : f32, head_dim = 16 : i64, num_kv_heads = 2 : i64, num_q_heads = 6 : i64} : tensor<96xf32>, tensor<32xf32>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<48xf32>, %p: index) {
  // expected-error @+1 {{num_q_heads (3) must be a multiple of the KV heads (2)}}
  %o = kiln.window_attention %r, %q, %p {num_q_heads = 3 : i64, scale = 4.0 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<48xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{query has 96 values, expected 64 (num_q_heads*head_dim)}}
  %o = kiln.window_attention %r, %q, %p {num_q_heads = 4 : i64, scale = 4.0 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{window (0) must be in 1..capacity (8)}}
  %o = kiln.window_attention %r, %q, %p {num_q_heads = 6 : i64, scale = 4.0 : f32, window = 0 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{window (9) must be in 1..capacity (8)}}
  %o = kiln.window_attention %r, %q, %p {num_q_heads = 6 : i64, scale = 4.0 : f32, window = 9 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{scale must be > 0}}
  %o = kiln.window_attention %r, %q, %p {num_q_heads = 6 : i64, scale = -1.0 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index, %ff: !kiln.far_field<q_heads = 4, kv_heads = 2, landmarks = 4, head_dim = 16>) {
  // expected-error @+1 {{does not match num_q_heads 6, kv_heads 2, head_dim 16}}
  %o = kiln.window_attention %r, %q, %p far(%ff : !kiln.far_field<q_heads = 4, kv_heads = 2, landmarks = 4, head_dim = 16>) {num_q_heads = 6 : i64, scale = 4.0 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index, %s: tensor<2x3x16xf32>) {
  // expected-error @+1 {{sinks must be (sink_k, sink_v), got 1 operands}}
  %o = kiln.window_attention %r, %q, %p sinks(%s : tensor<2x3x16xf32>) {num_q_heads = 6 : i64, scale = 4.0 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index, %k: tensor<2x3x16xf32>, %v: tensor<2x3x8xf32>) {
  // expected-error @+1 {{sink_v has shape [2, 3, 8], expected [2, 3, 16]}}
  %o = kiln.window_attention %r, %q, %p sinks(%k, %v : tensor<2x3x16xf32>, tensor<2x3x8xf32>) {num_q_heads = 6 : i64, scale = 4.0 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index, %s: tensor<1x3x16xf32>) {
  // expected-error @+1 {{sink_k has shape [1, 3, 16], expected [2, 3, 16]}}
  %o = kiln.window_attention %r, %q, %p sinks(%s, %s : tensor<1x3x16xf32>, tensor<1x3x16xf32>) {num_q_heads = 6 : i64, scale = 4.0 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index, %s: tensor<2x16xf32>) {
  // expected-error @+1 {{sink_k must be [kv_heads, num_sinks >= 1, head_dim]}}
  %o = kiln.window_attention %r, %q, %p sinks(%s, %s : tensor<2x16xf32>, tensor<2x16xf32>) {num_q_heads = 6 : i64, scale = 4.0 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{rectify needs a far field}}
  %o = kiln.window_attention %r, %q, %p {num_q_heads = 6 : i64, rectify, scale = 4.0 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%h: tensor<64xf32>) {
  // expected-error @+1 {{eps must be > 0}}
  %y = kiln.slerp_residual %h, %h, %h {eps = 0.0 : f32} : tensor<64xf32>
  return
}

// -----

func.func @f(%ff: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{stride (0) must be >= 1}}
  kiln.far_field_capture %ff, %q, %p {scale = 4.0 : f32, stride = 0 : i64} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%ff: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, %q: tensor<96xf32>, %p: index) {
  // expected-error @+1 {{scale must be > 0}}
  kiln.far_field_capture %ff, %q, %p {scale = 0.0 : f32} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, tensor<96xf32>
  return
}

// -----

func.func @f(%ff: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, %q: tensor<64xf32>, %p: index) {
  // expected-error @+1 {{query has 64 values, expected 96 (q_heads*head_dim)}}
  kiln.far_field_capture %ff, %q, %p {scale = 4.0 : f32} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, tensor<64xf32>
  return
}

// -----

func.func @f(%ff: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, %r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 8>, %p: index) {
  // expected-error @+1 {{does not match ring}}
  kiln.far_field_push %ff, %r, %p {scale = 4.0 : f32, window = 8 : i64} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 8>
  return
}

// -----

func.func @f(%ff: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, %r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %p: index) {
  // expected-error @+1 {{window (12) must be in 1..capacity (8)}}
  kiln.far_field_push %ff, %r, %p {scale = 4.0 : f32, window = 12 : i64} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
  return
}

// -----

func.func @f(%ff: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, %r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %p: index) {
  // expected-error @+1 {{scale must be > 0}}
  kiln.far_field_push %ff, %r, %p {scale = 0.0 : f32, window = 8 : i64} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
  return
}
