// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of the MoE router, expert selection and the hierarchical head, one case each.

func.func @f(%x: tensor<72xf32>, %mu: tensor<4x2x72xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{centres must be [num_experts, hidden]}}
  %e = kiln.resonance_route %x, %mu, %b : tensor<72xf32>, tensor<4x2x72xf32>, tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<72xf32>, %mu: tensor<4x64xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{centres has shape [4, 64], expected [4, 72]}}
  %e = kiln.resonance_route %x, %mu, %b : tensor<72xf32>, tensor<4x64xf32>, tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<72xf32>, %mu: tensor<4x72xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{bias has 3 values, expected 4 (one per expert)}}
  %e = kiln.resonance_route %x, %mu, %b : tensor<72xf32>, tensor<4x72xf32>, tensor<3xf32>
  return
}

// -----

func.func @f(%x: tensor<72xf32>, %mu: tensor<4x72xf32>, %b: tensor<4xf32>, %u: tensor<4x0x72xf32>) {
  // expected-error @+1 {{basis must be [num_experts, rank >= 1, hidden] (leave it out when rank is 0)}}
  %e = kiln.resonance_route %x, %mu, %b basis(%u : tensor<4x0x72xf32>) : tensor<72xf32>, tensor<4x72xf32>, tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<72xf32>, %mu: tensor<4x72xf32>, %b: tensor<4xf32>, %u: tensor<3x2x72xf32>) {
  // expected-error @+1 {{basis has shape [3, 2, 72], expected [4, 2, 72]}}
  %e = kiln.resonance_route %x, %mu, %b basis(%u : tensor<3x2x72xf32>) : tensor<72xf32>, tensor<4x72xf32>, tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<72xf32>, %mu: tensor<4x72xf32>, %b: tensor<4xf32>, %s: tensor<5xf32>) {
  // expected-error @+1 {{shells has 5 values, expected 4 (one per expert)}}
  %e = kiln.resonance_route %x, %mu, %b shells(%s : tensor<5xf32>) : tensor<72xf32>, tensor<4x72xf32>, tensor<4xf32>
  return
}

// -----

func.func @f(%e: index) {
  // expected-error @+1 {{needs at least one expert (num_experts >= 1)}}
  %w = "kiln.expert_select"(%e) : (index) -> !kiln.weight<[96, 72], q8_2f>
  return
}

// -----

func.func @f(%e: index, %a: !kiln.weight<[96, 72], q8_2f>, %b: !kiln.weight<[96, 72], f16>) {
  // expected-error @+1 {{candidate 1 has type}}
  %w = kiln.expert_select %e [%a, %b] : !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], f16> -> !kiln.weight<[96, 72], q8_2f>
  return
}

// -----

func.func @f(%r: !kiln.weight<[256, 72], q8_2f>, %x: tensor<72xf32>, %l: tensor<16xf32>, %g: f32) {
  // expected-error @+1 {{num_clusters (0) and cluster_size (16) must be >= 1}}
  %y = kiln.clustered_head %r, %x, %l, %g {cluster_size = 16 : i64, num_clusters = 0 : i64} : !kiln.weight<[256, 72], q8_2f>, tensor<72xf32>, tensor<16xf32> -> tensor<256xf32>
  return
}

// -----

func.func @f(%r: !kiln.weight<[256, 72], q8_2f>, %x: tensor<72xf32>, %l: tensor<15xf32>, %g: f32) {
  // expected-error @+1 {{num_clusters x cluster_size (15 x 16 = 240) must equal the vocab (256 rows)}}
  %y = kiln.clustered_head %r, %x, %l, %g {cluster_size = 16 : i64, num_clusters = 15 : i64} : !kiln.weight<[256, 72], q8_2f>, tensor<72xf32>, tensor<15xf32> -> tensor<256xf32>
  return
}

// -----

func.func @f(%r: !kiln.weight<[256, 72], q8_2f>, %x: tensor<64xf32>, %l: tensor<16xf32>, %g: f32) {
  // expected-error @+1 {{input has 64 values, expected 72 (the rows' cols)}}
  %y = kiln.clustered_head %r, %x, %l, %g {cluster_size = 16 : i64, num_clusters = 16 : i64} : !kiln.weight<[256, 72], q8_2f>, tensor<64xf32>, tensor<16xf32> -> tensor<256xf32>
  return
}

// -----

func.func @f(%r: !kiln.weight<[256, 72], q8_2f>, %x: tensor<72xf32>, %l: tensor<8xf32>, %g: f32) {
  // expected-error @+1 {{cluster_logprobs has 8 values, expected 16 (one per cluster)}}
  %y = kiln.clustered_head %r, %x, %l, %g {cluster_size = 16 : i64, num_clusters = 16 : i64} : !kiln.weight<[256, 72], q8_2f>, tensor<72xf32>, tensor<8xf32> -> tensor<256xf32>
  return
}

// -----

func.func @f(%r: !kiln.weight<[256, 72], q8_2f>, %x: tensor<72xf32>, %l: tensor<16xf32>, %g: f32) {
  // expected-error @+1 {{result has 128 values, expected 256 (the vocab)}}
  %y = kiln.clustered_head %r, %x, %l, %g {cluster_size = 16 : i64, num_clusters = 16 : i64} : !kiln.weight<[256, 72], q8_2f>, tensor<72xf32>, tensor<16xf32> -> tensor<128xf32>
  return
}
