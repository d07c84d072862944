// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of kiln type parameters, one case each.

// expected-error @+1 {{weight rows (0) must be >= 1}}
func.func @f(%a: !kiln.weight<[0, 4], f16>) {
  return
}

// -----

// expected-error @+1 {{weight cols (0) must be >= 1}}
func.func @f(%a: !kiln.weight<[4, 0], q8_2f>) {
  return
}

// -----

// expected-error @+1 {{kv_ring kv_heads (0) must be >= 1}}
func.func @f(%a: !kiln.kv_ring<kv_heads = 0, capacity = 8, head_dim = 16>) {
  return
}

// -----

// expected-error @+1 {{kv_ring capacity (window) (0) must be >= 1}}
func.func @f(%a: !kiln.kv_ring<kv_heads = 2, capacity = 0, head_dim = 16>) {
  return
}

// -----

// expected-error @+1 {{kv_ring head_dim (0) must be >= 1}}
func.func @f(%a: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 0>) {
  return
}

// -----

// expected-error @+1 {{gdn_state v_heads (0) must be >= 1}}
func.func @f(%a: !kiln.gdn_state<v_heads = 0, k_dim = 16, v_dim = 12>) {
  return
}

// -----

// expected-error @+1 {{gdn_state k_dim (0) must be >= 1}}
func.func @f(%a: !kiln.gdn_state<v_heads = 3, k_dim = 0, v_dim = 12>) {
  return
}

// -----

// expected-error @+1 {{gdn_state v_dim (0) must be >= 1}}
func.func @f(%a: !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 0>) {
  return
}

// -----

// expected-error @+1 {{conv_ring channels (0) must be >= 1}}
func.func @f(%a: !kiln.conv_ring<channels = 0, taps = 4>) {
  return
}

// -----

// expected-error @+1 {{conv_ring taps (0) must be >= 1}}
func.func @f(%a: !kiln.conv_ring<channels = 8, taps = 0>) {
  return
}

// -----

// expected-error @+1 {{far_field q_heads (0) must be >= 1}}
func.func @f(%a: !kiln.far_field<q_heads = 0, kv_heads = 2, landmarks = 4, head_dim = 16>) {
  return
}

// -----

// expected-error @+1 {{far_field kv_heads (0) must be >= 1}}
func.func @f(%a: !kiln.far_field<q_heads = 6, kv_heads = 0, landmarks = 4, head_dim = 16>) {
  return
}

// -----

// expected-error @+1 {{far_field q_heads (6) must be a multiple of kv_heads (4)}}
func.func @f(%a: !kiln.far_field<q_heads = 6, kv_heads = 4, landmarks = 4, head_dim = 16>) {
  return
}

// -----

// expected-error @+1 {{far_field landmarks (33) must be in 1..32}}
func.func @f(%a: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 33, head_dim = 16>) {
  return
}

// -----

// expected-error @+1 {{far_field landmarks (0) must be in 1..32}}
func.func @f(%a: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 0, head_dim = 16>) {
  return
}

// -----

// expected-error @+1 {{far_field head_dim (0) must be >= 1}}
func.func @f(%a: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 0>) {
  return
}

// -----

// expected-error @+1 {{loop_state hidden (0) must be >= 1}}
func.func @f(%a: !kiln.loop_state<hidden = 0>) {
  return
}
