// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of the GDN mixer ops, one case each.

func.func @f(%r: !kiln.conv_ring<channels = 68, taps = 4>, %c: tensor<64xf32>, %k: tensor<68x4xf32>) {
  // expected-error @+1 {{input has 64 values, expected 68 (the ring's channels)}}
  %y = kiln.conv_ring_step %r, %c, %k : !kiln.conv_ring<channels = 68, taps = 4>, tensor<64xf32>, tensor<68x4xf32> -> tensor<68xf32>
  return
}

// -----

func.func @f(%r: !kiln.conv_ring<channels = 68, taps = 4>, %c: tensor<68xf32>, %k: tensor<68x3xf32>) {
  // expected-error @+1 {{taps has shape [68, 3], expected [68, 4]}}
  %y = kiln.conv_ring_step %r, %c, %k : !kiln.conv_ring<channels = 68, taps = 4>, tensor<68xf32>, tensor<68x3xf32> -> tensor<68xf32>
  return
}

// -----

func.func @f(%r: !kiln.conv_ring<channels = 68, taps = 4>, %c: tensor<68xf32>, %k: tensor<68x4xf32>) {
  // expected-error @+1 {{result has 64 values, expected 68 (the ring's channels)}}
  %y = kiln.conv_ring_step %r, %c, %k : !kiln.conv_ring<channels = 68, taps = 4>, tensor<68xf32>, tensor<68x4xf32> -> tensor<64xf32>
  return
}

// -----

func.func @f(%s: !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, %c: tensor<68xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{num_k_heads (0) must be >= 1}}
  %o = kiln.gdn_step %s, %c, %g, %g {num_k_heads = 0 : i64} : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, tensor<68xf32>, tensor<3xf32> -> tensor<36xf32>
  return
}

// -----

func.func @f(%s: !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, %c: tensor<68xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{value heads (3) must be a multiple of num_k_heads (2)}}
  %o = kiln.gdn_step %s, %c, %g, %g {num_k_heads = 2 : i64} : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, tensor<68xf32>, tensor<3xf32> -> tensor<36xf32>
  return
}

// -----

func.func @f(%s: !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, %c: tensor<68xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{qk_eps must be > 0}}
  %o = kiln.gdn_step %s, %c, %g, %g {num_k_heads = 1 : i64, qk_eps = 0.0 : f32} : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, tensor<68xf32>, tensor<3xf32> -> tensor<36xf32>
  return
}

// -----

func.func @f(%s: !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, %c: tensor<64xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{input has 64 values, expected 68 (cdim = 2*nk*dk + nv*dv)}}
  %o = kiln.gdn_step %s, %c, %g, %g {num_k_heads = 1 : i64} : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, tensor<64xf32>, tensor<3xf32> -> tensor<36xf32>
  return
}

// -----

func.func @f(%s: !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, %c: tensor<68xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{decay has 4 values, expected 3 (one per value head)}}
  %o = kiln.gdn_step %s, %c, %g, %g {num_k_heads = 1 : i64} : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, tensor<68xf32>, tensor<4xf32> -> tensor<36xf32>
  return
}

// -----

func.func @f(%s: !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, %c: tensor<68xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{result has 48 values, expected 36 (nv*dv)}}
  %o = kiln.gdn_step %s, %c, %g, %g {num_k_heads = 1 : i64} : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, tensor<68xf32>, tensor<3xf32> -> tensor<48xf32>
  return
}

// -----

func.func @f(%o: tensor<36xf32>, %w: tensor<12xf32>) {
  // expected-error @+1 {{heads (0) must be >= 1}}
  %y = kiln.gated_rms_norm %o, %o, %w {eps = 1.0e-06 : f32, heads = 0 : i64} : tensor<36xf32>, tensor<12xf32>
  return
}

// -----

func.func @f(%o: tensor<36xf32>, %w: tensor<12xf32>) {
  // expected-error @+1 {{eps must be > 0}}
  %y = kiln.gated_rms_norm %o, %o, %w {eps = -1.0 : f32, heads = 3 : i64} : tensor<36xf32>, tensor<12xf32>
  return
}

// -----

func.func @f(%o: tensor<36xf32>, %w: tensor<12xf32>) {
  // expected-error @+1 {{input size (36) must be a multiple of heads (5)}}
  %y = kiln.gated_rms_norm %o, %o, %w {eps = 1.0e-06 : f32, heads = 5 : i64} : tensor<36xf32>, tensor<12xf32>
  return
}

// -----

func.func @f(%o: tensor<36xf32>, %w: tensor<9xf32>) {
  // expected-error @+1 {{weight has 9 values, expected 12 (one entry per value of a head)}}
  %y = kiln.gated_rms_norm %o, %o, %w {eps = 1.0e-06 : f32, heads = 3 : i64} : tensor<36xf32>, tensor<9xf32>
  return
}
