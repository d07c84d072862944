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

// kiln.max_prob is only the early-exit test of a loop read-out.
kiln.model @max_prob_outside dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 8 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %hw, %h : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    // expected-error @+1 {{'kiln.max_prob' op cannot be lowered to stages: kiln.max_prob is lowered only as the early-exit test of a kiln.loop read-out (stage.exit_test)}}
    %p = kiln.max_prob %lp : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

// The read-out leaves logits in the readback; the step may not return
// values computed on the device (log-probs) into the same buffer.
kiln.model @readback_conflict dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 8 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.state_decl @loop : !kiln.loop_state<hidden = 8>
  kiln.weight_decl @alpha : tensor<8xf32>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %s = kiln.state @loop : !kiln.loop_state<hidden = 8>
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
    // expected-error @+1 {{'kiln.return' op cannot be lowered to stages: the early-exit read-out leaves logits in the readback (the host applies log_softmax), so the returned value must be logits too: a kiln.log_softmax right before kiln.return}}
    kiln.return %l : tensor<4xf32>
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

// -----

// The far-field attention must end in the output gate (stage.window_attention applies it).
kiln.model @far_without_gate dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 8 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @q : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @k : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @v : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @gate : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @s_qk : tensor<2x4xf32>
  kiln.state_decl @far : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>
  kiln.state_decl @kv : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
  kiln.weight_decl @s_g : tensor<8xf32>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %x = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %wq = kiln.weight @q : !kiln.weight<[8, 8], f16>
    %q = kiln.matvec %wq, %x : !kiln.weight<[8, 8], f16>, tensor<8xf32> -> tensor<8xf32>
    %wk = kiln.weight @k : !kiln.weight<[4, 8], f16>
    %k = kiln.matvec %wk, %x : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %wv = kiln.weight @v : !kiln.weight<[4, 8], f16>
    %v = kiln.matvec %wv, %x : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %wg = kiln.weight @gate : !kiln.weight<[8, 8], f16>
    %g = kiln.matvec %wg, %x : !kiln.weight<[8, 8], f16>, tensor<8xf32> -> tensor<8xf32>
    %qr = kiln.rotary %q, %position {head_dim = 4 : i64, heads = 2 : i64, rotary_dim = 4 : i64, theta = 1.000000e+04 : f32} : tensor<8xf32>
    %kr = kiln.rotary %k, %position {head_dim = 4 : i64, heads = 1 : i64, rotary_dim = 4 : i64, theta = 1.000000e+04 : f32} : tensor<4xf32>
    %sqk = kiln.weight @s_qk : tensor<2x4xf32>
    %qn, %kn = kiln.qk_prep %qr, %kr, %sqk {eps = 1.0e-06 : f32, head_dim = 4 : i64, num_kv_heads = 1 : i64, num_q_heads = 2 : i64} : tensor<8xf32>, tensor<4xf32>, tensor<2x4xf32>
    %ff = kiln.state @far : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>
    %kv = kiln.state @kv : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
    kiln.far_field_capture %ff, %qn, %position {scale = 2.000000e+00 : f32} : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>, tensor<8xf32>
    kiln.far_field_push %ff, %kv, %position {scale = 2.000000e+00 : f32, window = 2 : i64} : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>, !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
    kiln.kv_ring_write %kv, %kn, %v, %position : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>, tensor<4xf32>
    // expected-error @+1 {{'kiln.window_attention' op cannot be lowered to stages: stage.window_attention applies the output gate: with a far field the result must feed exactly one kiln.output_gate (as its input) whose s_g is a declared weight}}
    %a = kiln.window_attention %kv, %qn, %position far(%ff : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>) {num_q_heads = 2 : i64, rectify, scale = 2.000000e+00 : f32, window = 2 : i64} : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>, tensor<8xf32>
    %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %hw, %a : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

// With capacity == window the push reads the slot the ring write replaces: it must come first.
kiln.model @push_after_write dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 8 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @q : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @k : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @v : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @gate : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @s_qk : tensor<2x4xf32>
  kiln.state_decl @far : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>
  kiln.state_decl @kv : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
  kiln.weight_decl @s_g : tensor<8xf32>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %x = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %wq = kiln.weight @q : !kiln.weight<[8, 8], f16>
    %q = kiln.matvec %wq, %x : !kiln.weight<[8, 8], f16>, tensor<8xf32> -> tensor<8xf32>
    %wk = kiln.weight @k : !kiln.weight<[4, 8], f16>
    %k = kiln.matvec %wk, %x : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %wv = kiln.weight @v : !kiln.weight<[4, 8], f16>
    %v = kiln.matvec %wv, %x : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %wg = kiln.weight @gate : !kiln.weight<[8, 8], f16>
    %g = kiln.matvec %wg, %x : !kiln.weight<[8, 8], f16>, tensor<8xf32> -> tensor<8xf32>
    %qr = kiln.rotary %q, %position {head_dim = 4 : i64, heads = 2 : i64, rotary_dim = 4 : i64, theta = 1.000000e+04 : f32} : tensor<8xf32>
    %kr = kiln.rotary %k, %position {head_dim = 4 : i64, heads = 1 : i64, rotary_dim = 4 : i64, theta = 1.000000e+04 : f32} : tensor<4xf32>
    %sqk = kiln.weight @s_qk : tensor<2x4xf32>
    %qn, %kn = kiln.qk_prep %qr, %kr, %sqk {eps = 1.0e-06 : f32, head_dim = 4 : i64, num_kv_heads = 1 : i64, num_q_heads = 2 : i64} : tensor<8xf32>, tensor<4xf32>, tensor<2x4xf32>
    %ff = kiln.state @far : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>
    %kv = kiln.state @kv : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
    kiln.far_field_capture %ff, %qn, %position {scale = 2.000000e+00 : f32} : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>, tensor<8xf32>
    kiln.kv_ring_write %kv, %kn, %v, %position : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>, tensor<4xf32>
    // expected-error @+1 {{'kiln.far_field_push' op cannot be lowered to stages: with capacity == window the push must come before the step's kiln.kv_ring_write of its ring (the write replaces the key leaving the window)}}
    kiln.far_field_push %ff, %kv, %position {scale = 2.000000e+00 : f32, window = 2 : i64} : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>, !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
    %a = kiln.window_attention %kv, %qn, %position far(%ff : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>) {num_q_heads = 2 : i64, rectify, scale = 2.000000e+00 : f32, window = 2 : i64} : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>, tensor<8xf32>
    %sg = kiln.weight @s_g : tensor<8xf32>
    %og = kiln.output_gate %a, %g, %sg : tensor<8xf32>
    %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %hw, %og : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

// The landmark is the prepped query stage.dory_prep writes.
kiln.model @capture_raw_query dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 8 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @q : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @k : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @v : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @gate : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @s_qk : tensor<2x4xf32>
  kiln.state_decl @far : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>
  kiln.state_decl @kv : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
  kiln.weight_decl @s_g : tensor<8xf32>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %x = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %wq = kiln.weight @q : !kiln.weight<[8, 8], f16>
    %q = kiln.matvec %wq, %x : !kiln.weight<[8, 8], f16>, tensor<8xf32> -> tensor<8xf32>
    %wk = kiln.weight @k : !kiln.weight<[4, 8], f16>
    %k = kiln.matvec %wk, %x : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %wv = kiln.weight @v : !kiln.weight<[4, 8], f16>
    %v = kiln.matvec %wv, %x : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %wg = kiln.weight @gate : !kiln.weight<[8, 8], f16>
    %g = kiln.matvec %wg, %x : !kiln.weight<[8, 8], f16>, tensor<8xf32> -> tensor<8xf32>
    %qr = kiln.rotary %q, %position {head_dim = 4 : i64, heads = 2 : i64, rotary_dim = 4 : i64, theta = 1.000000e+04 : f32} : tensor<8xf32>
    %kr = kiln.rotary %k, %position {head_dim = 4 : i64, heads = 1 : i64, rotary_dim = 4 : i64, theta = 1.000000e+04 : f32} : tensor<4xf32>
    %sqk = kiln.weight @s_qk : tensor<2x4xf32>
    %qn, %kn = kiln.qk_prep %qr, %kr, %sqk {eps = 1.0e-06 : f32, head_dim = 4 : i64, num_kv_heads = 1 : i64, num_q_heads = 2 : i64} : tensor<8xf32>, tensor<4xf32>, tensor<2x4xf32>
    %ff = kiln.state @far : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>
    %kv = kiln.state @kv : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
    // expected-error @+1 {{'kiln.far_field_capture' op cannot be lowered to stages: stage.landmark_capture copies the prepped query that stage.dory_prep writes: the query must be kiln.qk_prep's first result}}
    kiln.far_field_capture %ff, %q, %position {scale = 2.000000e+00 : f32} : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>, tensor<8xf32>
    kiln.far_field_push %ff, %kv, %position {scale = 2.000000e+00 : f32, window = 2 : i64} : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>, !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
    kiln.kv_ring_write %kv, %kn, %v, %position : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>, tensor<4xf32>
    %a = kiln.window_attention %kv, %qn, %position far(%ff : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>) {num_q_heads = 2 : i64, rectify, scale = 2.000000e+00 : f32, window = 2 : i64} : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>, tensor<8xf32>
    %sg = kiln.weight @s_g : tensor<8xf32>
    %og = kiln.output_gate %a, %g, %sg : tensor<8xf32>
    %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %hw, %og : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

// A capture whose far field no attention of the pass reads would never be sealed.
kiln.model @capture_unread dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 8 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @q : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @k : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @v : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @gate : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @s_qk : tensor<2x4xf32>
  kiln.state_decl @far : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>
  kiln.state_decl @kv : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
  kiln.weight_decl @s_g : tensor<8xf32>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.state_decl @loop : !kiln.loop_state<hidden = 8>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %s = kiln.state @loop : !kiln.loop_state<hidden = 8>
    %out = kiln.loop %h, %s passes(1) : tensor<8xf32>, !kiln.loop_state<hidden = 8> body {
    ^bb0(%x: tensor<8xf32>, %pass: index):
    %wq = kiln.weight @q : !kiln.weight<[8, 8], f16>
    %q = kiln.matvec %wq, %x : !kiln.weight<[8, 8], f16>, tensor<8xf32> -> tensor<8xf32>
    %wk = kiln.weight @k : !kiln.weight<[4, 8], f16>
    %k = kiln.matvec %wk, %x : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %wv = kiln.weight @v : !kiln.weight<[4, 8], f16>
    %v = kiln.matvec %wv, %x : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %wg = kiln.weight @gate : !kiln.weight<[8, 8], f16>
    %g = kiln.matvec %wg, %x : !kiln.weight<[8, 8], f16>, tensor<8xf32> -> tensor<8xf32>
    %qr = kiln.rotary %q, %position {head_dim = 4 : i64, heads = 2 : i64, rotary_dim = 4 : i64, theta = 1.000000e+04 : f32} : tensor<8xf32>
    %kr = kiln.rotary %k, %position {head_dim = 4 : i64, heads = 1 : i64, rotary_dim = 4 : i64, theta = 1.000000e+04 : f32} : tensor<4xf32>
    %sqk = kiln.weight @s_qk : tensor<2x4xf32>
    %qn, %kn = kiln.qk_prep %qr, %kr, %sqk {eps = 1.0e-06 : f32, head_dim = 4 : i64, num_kv_heads = 1 : i64, num_q_heads = 2 : i64} : tensor<8xf32>, tensor<4xf32>, tensor<2x4xf32>
    %ff = kiln.state @far : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>
    %kv = kiln.state @kv : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
    // expected-error @+1 {{'kiln.far_field_capture' op cannot be lowered to stages: no kiln.window_attention of this pass reads the far field after the capture, so no stage would seal its landmarks}}
    kiln.far_field_capture %ff, %qn, %position {scale = 2.000000e+00 : f32} : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>, tensor<8xf32>
    kiln.far_field_push %ff, %kv, %position {scale = 2.000000e+00 : f32, window = 2 : i64} : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>, !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
    kiln.kv_ring_write %kv, %kn, %v, %position : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>, tensor<4xf32>
    kiln.yield %x : tensor<8xf32>
    }
    %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %hw, %out : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

// A routed matrix lives in a stacked buffer that only stage.matvec indexes
// by the router's word: an expert-selected table is refused.
kiln.model @routed_table embryo attributes {eps = 1.0e-06 : f32, hidden = 12 : i64, intermediate = 8 : i64, vocab = 6 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[6, 12], f16>
  kiln.weight_decl @embed2 : !kiln.weight<[6, 12], f16>
  kiln.weight_decl @final_norm : tensor<12xf32>
  kiln.weight_decl @moe.centres : tensor<2x12xf32>
  kiln.weight_decl @moe.bias : tensor<2xf32>
  kiln.weight_decl @head.clusters : tensor<2x12xf32>
  kiln.weight_decl @head.rows : !kiln.weight<[6, 12], f16>
  kiln.step {
  ^bb0(%token: index, %position: index, %top_p: f32):
    %e = kiln.weight @embed : !kiln.weight<[6, 12], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[6, 12], f16> -> tensor<12xf32>
    %w = kiln.weight @final_norm : tensor<12xf32>
    %x = kiln.rms_norm %h, %w {eps = 1.0e-06 : f32, zero_centered} : tensor<12xf32>
    %mu = kiln.weight @moe.centres : tensor<2x12xf32>
    %b = kiln.weight @moe.bias : tensor<2xf32>
    %ex = kiln.resonance_route %x, %mu, %b : tensor<12xf32>, tensor<2x12xf32>, tensor<2xf32>
    %e2 = kiln.weight @embed2 : !kiln.weight<[6, 12], f16>
    // expected-error @+1 {{'kiln.expert_select' op cannot be lowered to stages: the chosen matrix is read by stage.matvec (expert operand): it may feed only kiln.matvec's weight, not 'kiln.embed'}}
    %t = kiln.expert_select %ex[%e, %e2] : !kiln.weight<[6, 12], f16>, !kiln.weight<[6, 12], f16> -> !kiln.weight<[6, 12], f16>
    %h2 = kiln.embed %t[%token] : !kiln.weight<[6, 12], f16> -> tensor<12xf32>
    %c = kiln.weight @head.clusters : tensor<2x12xf32>
    %y = kiln.matvec %c, %h2 : tensor<2x12xf32>, tensor<12xf32> -> tensor<2xf32>
    %lc = kiln.log_softmax %y : tensor<2xf32>
    %gate = kiln.top_p_gate %lc, %top_p : tensor<2xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[6, 12], f16>
    %logp = kiln.clustered_head %r, %x, %lc, %gate {cluster_size = 3 : i64, num_clusters = 2 : i64} : !kiln.weight<[6, 12], f16>, tensor<12xf32>, tensor<2xf32> -> tensor<6xf32>
    kiln.return %logp : tensor<6xf32>
  }
}
