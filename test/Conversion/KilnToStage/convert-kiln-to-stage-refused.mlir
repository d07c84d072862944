// REQUIRES: compiler
// RUN: kiln-opt --convert-kiln-to-stage --split-input-file --verify-diagnostics %s

// What no stage computes is refused with the rule, at the kiln op.

// A silu that does not follow the conv ring.
kiln.model @head_f16 embryo attributes {eps = 1.0e-06 : f32, hidden = 12 : i64, intermediate = 8 : i64, vocab = 6 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[6, 12], f16>
  kiln.weight_decl @final_norm : tensor<12xf32>
  kiln.weight_decl @head.clusters : tensor<2x12xf32>
  kiln.weight_decl @head.rows : !kiln.weight<[6, 12], f16>
  kiln.step {
  ^bb0(%token: index, %position: index, %top_p: f32):
    %e = kiln.weight @embed : !kiln.weight<[6, 12], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[6, 12], f16> -> tensor<12xf32>
    %w = kiln.weight @final_norm : tensor<12xf32>
    %x = kiln.rms_norm %h, %w {eps = 1.0e-06 : f32, zero_centered} : tensor<12xf32>
    // expected-error @+1 {{'kiln.silu' op cannot be lowered to stages: no stage computes a lone silu; it must follow a kiln.conv_ring_step (stage.conv_ring applies it)}}
    %s = kiln.silu %x : tensor<12xf32>
    %c = kiln.weight @head.clusters : tensor<2x12xf32>
    %y = kiln.matvec %c, %s : tensor<2x12xf32>, tensor<12xf32> -> tensor<2xf32>
    %lc = kiln.log_softmax %y : tensor<2xf32>
    %gate = kiln.top_p_gate %lc, %top_p : tensor<2xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[6, 12], f16>
    %logp = kiln.clustered_head %r, %x, %lc, %gate {cluster_size = 3 : i64, num_clusters = 2 : i64} : !kiln.weight<[6, 12], f16>, tensor<12xf32>, tensor<2xf32> -> tensor<6xf32>
    kiln.return %logp : tensor<6xf32>
  }
}

// -----

// The head gate comes from params word 2 (kiln.top_p_gate), nothing else.
kiln.model @gate_from_elsewhere embryo attributes {eps = 1.0e-06 : f32, hidden = 12 : i64, intermediate = 8 : i64, vocab = 6 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[6, 12], f16>
  kiln.weight_decl @final_norm : tensor<12xf32>
  kiln.weight_decl @head.clusters : tensor<2x12xf32>
  kiln.weight_decl @head.rows : !kiln.weight<[6, 12], f16>
  kiln.step {
  ^bb0(%token: index, %position: index, %top_p: f32):
    %e = kiln.weight @embed : !kiln.weight<[6, 12], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[6, 12], f16> -> tensor<12xf32>
    %w = kiln.weight @final_norm : tensor<12xf32>
    %x = kiln.rms_norm %h, %w {eps = 1.0e-06 : f32, zero_centered} : tensor<12xf32>
    %c = kiln.weight @head.clusters : tensor<2x12xf32>
    %y = kiln.matvec %c, %x : tensor<2x12xf32>, tensor<12xf32> -> tensor<2xf32>
    %lc = kiln.log_softmax %y : tensor<2xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[6, 12], f16>
    // expected-error @+1 {{gate must be kiln.top_p_gate}}
    %logp = kiln.clustered_head %r, %x, %lc, %top_p {cluster_size = 3 : i64, num_clusters = 2 : i64} : !kiln.weight<[6, 12], f16>, tensor<12xf32>, tensor<2xf32> -> tensor<6xf32>
    kiln.return %logp : tensor<6xf32>
  }
}

// -----

// Early exit waits for its stages to be wired in.
kiln.model @early_exit dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 8 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.state_decl @loop : !kiln.loop_state<hidden = 8>
  kiln.weight_decl @alpha : tensor<8xf32>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %s = kiln.state @loop : !kiln.loop_state<hidden = 8>
    // expected-error @+1 {{early exit needs stage.exit_test}}
    %out = kiln.loop %h, %s passes(2) exit_threshold(0.5) : tensor<8xf32>, !kiln.loop_state<hidden = 8> body {
    ^bb0(%x: tensor<8xf32>, %pass: index):
      %a = kiln.weight @alpha : tensor<8xf32>
      %h2 = kiln.slerp_residual %x, %x, %a {eps = 1.0e-06 : f32} : tensor<8xf32>
      kiln.yield %h2 : tensor<8xf32>
    } readout {
    ^bb0(%r: tensor<8xf32>):
      %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
      %l = kiln.matvec %hw, %r : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
      %lp = kiln.log_softmax %l : tensor<4xf32>
      %p = kiln.max_prob %lp : tensor<4xf32>
      kiln.yield %p : f32
    }
    %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %hw, %out : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

// An in-place stage (slerp) whose input is read afterwards.
kiln.model @reads_after_slerp dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 8 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @alpha : tensor<8xf32>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %a = kiln.weight @alpha : tensor<8xf32>
    // expected-error @+1 {{it updates its input's buffer in place, but that input is read again later by 'kiln.add'}}
    %h2 = kiln.slerp_residual %h, %h, %a {eps = 1.0e-06 : f32} : tensor<8xf32>
    %h3 = kiln.add %h2, %h : tensor<8xf32>
    %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %hw, %h3 : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}
