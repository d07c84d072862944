// REQUIRES: compiler
// RUN: kiln-opt --convert-kiln-to-stage --kiln-plan-memory --split-input-file %s | FileCheck %s

// The head alone (f16): embed_gather, one rmsnorm output read by both the
// cluster logits and the head rows, log-probs written into the readback.
// Scratch planes whose live ranges do not overlap share a slot.

// CHECK-LABEL: module attributes {kiln.config = "", kiln.family = "embryo", kiln.max_position = 4096 : i64, kiln.vocab_size = 6 : i64, kiln.weight_format = "f16"}
// CHECK: func.func @decode(%[[P:[a-z0-9]+]]: memref<8xi32> {stage.buffer = #stage.buffer<kind = params, name = "params", slot = 0, byte_size = 32>},
// CHECK-SAME: %[[E:[a-z0-9]+]]: memref<6x2xvector<4xi32>> {stage.buffer = #stage.buffer<kind = weight, name = "embed", slot = 1, byte_size = 192, tensors = [#stage.tensor<name = "embed", dtype = "F16", shape = [6, 12], layout = "F16RowMajor", byte_offset = 0, row_pitch_bytes = 32>]>},
// CHECK-SAME: %[[H:[a-z0-9]+]]: memref<12xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.embed", slot = [[SLOT:[0-9]+]], byte_size = {{[0-9]+}}>}
// CHECK-SAME: %[[LC:[a-z0-9]+]]: memref<2xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.log_softmax", slot = [[SLOT]], byte_size = {{[0-9]+}}>}
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<6xf32> {stage.buffer = #stage.buffer<kind = readback, name = "readback"
// The session's sampling options and stop token (stage.sample) and head top-p (stage.head_rows): params words 3-7.
// CHECK-SAME: stage.params = [#stage.param<name = "temperature", word = 3, rule = "Temperature">, #stage.param<name = "top_p", word = 4, rule = "TopP">, #stage.param<name = "random", word = 5, rule = "RandomU32">, #stage.param<name = "stop_token", word = 6, rule = "StopToken">, #stage.param<name = "head_top_p", word = 7, rule = "HeadTopP">]
// CHECK-SAME: stage.readback = #stage.readback<arg = 8, count = 6, values = "LogProbs">
// CHECK-SAME: stage.sampled = #stage.sampled<arg = 9, draws = true, stop_flag = true>
// CHECK: stage.dispatch "embed" {
// CHECK-NEXT: stage.embed_gather table(%[[E]] : memref<6x2xvector<4xi32>>) params(%[[P]] : memref<8xi32>) out(%[[H]] : memref<12xf32>)
// CHECK: stage.dispatch "final_norm" {
// CHECK-NEXT: stage.rmsnorm residual(%[[H]] : memref<12xf32>) weight(%{{.*}} : memref<12xf32>) outs(%[[X:[a-z0-9]+]] : memref<12xf32>) {eps = 9.99999997E-7 : f32, zero_centered}
// CHECK: stage.dispatch "cluster_logits" {
// CHECK-NEXT: stage.cluster_logits input(%[[X]] : memref<12xf32>) clusters(%{{.*}} : memref<2x12xf32>) out(%[[LC]] : memref<2xf32>)
// CHECK: stage.dispatch "head_rows" {
// CHECK-NEXT: stage.head_rows input(%[[X]] : memref<12xf32>) rows(%{{.*}} : memref<6x2xvector<4xi32>>) cluster_logits(%[[LC]] : memref<2xf32>) params(%[[P]] : memref<8xi32>) out(%[[OUT]] : memref<6xf32>) {format = #stage.format<f16>}
// CHECK-NOT: kiln.
// CHECK: return
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
    %c = kiln.weight @head.clusters : tensor<2x12xf32>
    %y = kiln.matvec %c, %x : tensor<2x12xf32>, tensor<12xf32> -> tensor<2xf32>
    %lc = kiln.log_softmax %y : tensor<2xf32>
    %gate = kiln.top_p_gate %lc, %top_p : tensor<2xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[6, 12], f16>
    %logp = kiln.clustered_head %r, %x, %lc, %gate {cluster_size = 3 : i64, num_clusters = 2 : i64} : !kiln.weight<[6, 12], f16>, tensor<12xf32>, tensor<2xf32> -> tensor<6xf32>
    kiln.return %logp : tensor<6xf32>
  }
}

// -----

// q8_2f: the final norm writes a plain output (cluster logits, f32) and one
// folded by head.rows.col_scale (two rmsnorm stages in one dispatch); the
// head rows take their row scale; the three q8_2f tensors are listed.

// CHECK-LABEL: kiln.weight_format = "q8_2f"
// CHECK: %[[ROWS:[a-z0-9]+]]: memref<6x1xvector<4xi32>> {stage.buffer = #stage.buffer<kind = weight, name = "head.rows", {{.*}}tensors = [#stage.tensor<name = "head.rows.q", dtype = "I8", shape = [6, 12], layout = "I8RowMajor", byte_offset = 0, row_pitch_bytes = 16>]>}
// CHECK: stage.dispatch "final_norm" {
// CHECK-NEXT: stage.rmsnorm residual(%[[H:[a-z0-9]+]] : memref<12xf32>) weight(%[[W:[a-z0-9]+]] : memref<12xf32>) outs(%[[X:[a-z0-9]+]] : memref<12xf32>) {eps
// CHECK-NEXT: stage.rmsnorm residual(%[[H]] : memref<12xf32>) weight(%[[W]] : memref<12xf32>) outs(%[[XF:[a-z0-9]+]] : memref<12xf32>) folds(%[[T:[a-z0-9]+]] : memref<12xf32>) {eps
// CHECK: stage.cluster_logits input(%[[X]] : memref<12xf32>)
// CHECK: stage.head_rows input(%[[XF]] : memref<12xf32>) rows(%[[ROWS]] : memref<6x1xvector<4xi32>>) row_scale(%{{.*}} : memref<6xf32>) {{.*}} {format = #stage.format<q8_2f>}
kiln.model @head_q8 embryo attributes {eps = 1.0e-06 : f32, hidden = 12 : i64, intermediate = 8 : i64, vocab = 6 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[6, 12], f16>
  kiln.weight_decl @final_norm : tensor<12xf32>
  kiln.weight_decl @head.clusters : tensor<2x12xf32>
  kiln.weight_decl @head.rows : !kiln.weight<[6, 12], q8_2f>
  kiln.step {
  ^bb0(%token: index, %position: index, %top_p: f32):
    %e = kiln.weight @embed : !kiln.weight<[6, 12], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[6, 12], f16> -> tensor<12xf32>
    %w = kiln.weight @final_norm : tensor<12xf32>
    %x = kiln.rms_norm %h, %w {eps = 1.0e-06 : f32, zero_centered} : tensor<12xf32>
    %c = kiln.weight @head.clusters : tensor<2x12xf32>
    %y = kiln.matvec %c, %x : tensor<2x12xf32>, tensor<12xf32> -> tensor<2xf32>
    %lc = kiln.log_softmax %y : tensor<2xf32>
    %gate = kiln.top_p_gate %lc, %top_p : tensor<2xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[6, 12], q8_2f>
    %logp = kiln.clustered_head %r, %x, %lc, %gate {cluster_size = 3 : i64, num_clusters = 2 : i64} : !kiln.weight<[6, 12], q8_2f>, tensor<12xf32>, tensor<2xf32> -> tensor<6xf32>
    kiln.return %logp : tensor<6xf32>
  }
}

// -----

// Dory's loop without early exit: enter (mode 0), the pass updating h in
// place (slerp), between (1), the second pass, leave (2); the head's scaled
// logits are the readback (the host applies log_softmax); head_scale is
// read from its weight buffer, not a scratch plane.

// CHECK-LABEL: kiln.family = "dory"
// CHECK: %[[H:[a-z0-9]+]]: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.embed"
// CHECK-SAME: %[[IN:[a-z0-9]+]]: memref<8xf32> {stage.buffer = #stage.buffer<kind = state, name = "loop.in"
// CHECK-SAME: %[[ST:[a-z0-9]+]]: memref<8xf32> {stage.buffer = #stage.buffer<kind = state, name = "loop.st"
// CHECK-SAME: %[[HS:[a-z0-9]+]]: memref<4xf32> {stage.buffer = #stage.buffer<kind = weight, name = "head_scale", slot = {{[0-9]+}}, byte_size = 16
// CHECK-SAME: stage.readback = #stage.readback<arg = [[RB:[0-9]+]], count = 4, values = "Logits">
// CHECK: stage.dispatch "mix_enter" {
// CHECK-NEXT: stage.dory_mix hidden(%[[H]] : memref<8xf32>) entry(%[[IN]] : memref<8xf32>) state(%[[ST]] : memref<8xf32>) {eps = 9.99999997E-7 : f32, mode = 0 : i64}
// CHECK: stage.dispatch "w" {
// CHECK: stage.dispatch "alpha" {
// CHECK-NEXT: stage.slerp hidden(%[[H]] : memref<8xf32>)
// CHECK: stage.dispatch "mix_between" {
// CHECK-NEXT: stage.dory_mix hidden(%[[H]] : memref<8xf32>) {{.*}} mode = 1 : i64
// CHECK: stage.dispatch "w_1" {
// CHECK: stage.dispatch "alpha_1" {
// CHECK: stage.dispatch "mix_leave" {
// CHECK-NEXT: stage.dory_mix hidden(%[[H]] : memref<8xf32>) {{.*}} mode = 2 : i64
// CHECK: stage.dispatch "head" {
// CHECK-NEXT: stage.matvec {{.*}} input(%[[H]] : memref<8xf32>)
// CHECK: stage.dispatch "mul" {
// CHECK-NEXT: stage.mul ins(%{{.*}}, %[[HS]] : memref<4xf32>, memref<4xf32>) out(%arg[[RB]] : memref<4xf32>)
// The device's greedy pick of the read-out's logits, never skipped.
// CHECK: stage.dispatch "sample" {
// CHECK-NEXT: stage.sample values(%arg[[RB]] : memref<4xf32>) params(%[[P]] : memref<8xi32>) out(%{{.*}} : memref<3xi32>) {logits}
// CHECK-NOT: stage.dispatch
kiln.model @loop dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 8 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.state_decl @loop : !kiln.loop_state<hidden = 8>
  kiln.weight_decl @w : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @alpha : tensor<8xf32>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head_scale : tensor<4xf32>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %s = kiln.state @loop : !kiln.loop_state<hidden = 8>
    %out = kiln.loop %h, %s passes(2) : tensor<8xf32>, !kiln.loop_state<hidden = 8> body {
    ^bb0(%x: tensor<8xf32>, %pass: index):
      %w = kiln.weight @w : !kiln.weight<[8, 8], f16>
      %y = kiln.matvec %w, %x : !kiln.weight<[8, 8], f16>, tensor<8xf32> -> tensor<8xf32>
      %a = kiln.weight @alpha : tensor<8xf32>
      %h2 = kiln.slerp_residual %x, %y, %a {eps = 1.0e-06 : f32} : tensor<8xf32>
      kiln.yield %h2 : tensor<8xf32>
    }
    %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %hw, %out : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %hs = kiln.weight @head_scale : tensor<4xf32>
    %ls = kiln.mul %l, %hs : tensor<4xf32>
    %lp = kiln.log_softmax %ls : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

// Dory's far field (one layer, two passes, ring capacity = window = 2):
// pass 0 pushes the key leaving the window before the prep overwrites its
// slot, captures the prepped query and seals after the prep, then one
// window_attention does near + far + the output gate. Pass 1 pushes,
// captures and seals nothing (the reference folds each key once and keeps
// the pass-0 queries as landmarks). The far state is four state buffers.

// CHECK-LABEL: kiln.family = "dory"
// CHECK: %[[P:[a-z0-9]+]]: memref<8xi32> {stage.buffer = #stage.buffer<kind = params
// CHECK-SAME: %[[G:[a-z0-9]+]]: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.gate.out"
// CHECK-SAME: %[[KR:[a-z0-9]+]]: memref<1x2x4xf32> {stage.buffer = #stage.buffer<kind = state, name = "kv.k"
// CHECK-SAME: %[[VR:[a-z0-9]+]]: memref<1x2x4xf32> {stage.buffer = #stage.buffer<kind = state, name = "kv.v"
// CHECK-SAME: %[[META:[a-z0-9]+]]: memref<3xi32> {stage.buffer = #stage.buffer<kind = state, name = "far.meta", slot = {{[0-9]+}}, byte_size = 12
// CHECK-SAME: %[[SUMS:[a-z0-9]+]]: memref<1x2x6xf32> {stage.buffer = #stage.buffer<kind = state, name = "far.sums"
// CHECK-SAME: %[[LM:[a-z0-9]+]]: memref<1x2x4xf32> {stage.buffer = #stage.buffer<kind = state, name = "far.landmarks"
// CHECK-SAME: %[[QN:[a-z0-9]+]]: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.qk_prep.0"
// CHECK-SAME: %[[INV:[a-z0-9]+]]: memref<1x2x2xf32> {stage.buffer = #stage.buffer<kind = state, name = "far.inverse"
// CHECK-SAME: %[[SG:[a-z0-9]+]]: memref<8xf32> {stage.buffer = #stage.buffer<kind = weight, name = "s_g"
// CHECK-SAME: %[[OG:[a-z0-9]+]]: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.output_gate"
// CHECK-SAME: stage.device_flags = []
// CHECK: stage.dispatch "gate" {
// CHECK: stage.dispatch "far_push" {
// CHECK-NEXT: stage.far_field_push k_ring(%[[KR]] : memref<1x2x4xf32>) v_ring(%[[VR]] : memref<1x2x4xf32>) params(%[[P]] : memref<8xi32>) landmarks(%[[LM]] : memref<1x2x4xf32>) far_sums(%[[SUMS]] : memref<1x2x6xf32>) far_meta(%[[META]] : memref<3xi32>) {scale = 2.000000e+00 : f32, window = 2 : i64}
// CHECK: stage.dispatch "kv_prep" {
// CHECK-NEXT: stage.dory_prep {{.*}} q_out(%[[QN]] : memref<8xf32>) k_ring(%[[KR]] : memref<1x2x4xf32>) v_ring(%[[VR]] : memref<1x2x4xf32>) capture(%[[LM]], %[[META]] : memref<1x2x4xf32>, memref<3xi32>) {eps = {{.*}}, landmark_stride = 8 : i64, rope_theta = {{.*}}}
// CHECK-NOT: stage.landmark_capture
// CHECK: stage.dispatch "far_seal" {
// CHECK-NEXT: stage.landmark_seal landmarks(%[[LM]] : memref<1x2x4xf32>) params(%[[P]] : memref<8xi32>) inverse(%[[INV]] : memref<1x2x2xf32>) far_sums(%[[SUMS]] : memref<1x2x6xf32>) far_meta(%[[META]] : memref<3xi32>) {scale = 2.000000e+00 : f32}
// CHECK: stage.dispatch "kv_scores" {
// CHECK-NEXT: stage.key_scores q(%[[QN]] : memref<8xf32>) k_ring(%[[KR]] : memref<1x2x4xf32>) params(%[[P]] : memref<8xi32>) scores(%[[S:[a-z0-9]+]] : memref<2x2xf32>) {scale = 2.000000e+00 : f32, window = 2 : i64}
// CHECK: stage.dispatch "kv_attention" {
// CHECK-NEXT: stage.window_attention q(%[[QN]] : memref<8xf32>) scores(%[[S]] : memref<2x2xf32>) v_ring(%[[VR]] : memref<1x2x4xf32>) gate(%[[G]] : memref<8xf32>) gate_scale(%[[SG]] : memref<8xf32>) params(%[[P]] : memref<8xi32>) far(%[[LM]], %[[INV]], %[[SUMS]], %[[META]] : memref<1x2x4xf32>, memref<1x2x2xf32>, memref<1x2x6xf32>, memref<3xi32>) out(%[[OG]] : memref<8xf32>) {rectify, scale = 2.000000e+00 : f32, window = 2 : i64}
// CHECK: stage.dispatch "o" {
// CHECK-NEXT: stage.matvec {{.*}} input(%[[OG]] : memref<8xf32>)
// CHECK: stage.dispatch "mix_between" {
// CHECK-NOT: far_push
// CHECK-NOT: far_capture
// CHECK-NOT: far_seal
// CHECK: stage.dispatch "kv_prep_1" {
// CHECK-NEXT: stage.dory_prep {{.*}} q_out(%[[QN1:[a-z0-9]+]] : memref<8xf32>) k_ring(%[[KR]] : memref<1x2x4xf32>)
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: stage.dispatch "kv_scores_1" {
// CHECK-NEXT: stage.key_scores q(%[[QN1]] : memref<8xf32>)
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: stage.dispatch "kv_attention_1" {
// CHECK-NEXT: stage.window_attention q(%[[QN1]] : memref<8xf32>) {{.*}} far(%[[LM]], %[[INV]], %[[SUMS]], %[[META]] : {{.*}}) out(%{{.*}} : memref<8xf32>) {rectify, scale = 2.000000e+00 : f32, window = 2 : i64}
// CHECK: stage.dispatch "mix_leave" {
// CHECK-NOT: skip_if
kiln.model @far dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 8 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.state_decl @loop : !kiln.loop_state<hidden = 8>
  kiln.weight_decl @q : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @k : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @v : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @gate : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @s_qk : tensor<2x4xf32>
  kiln.state_decl @far : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>
  kiln.state_decl @kv : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
  kiln.weight_decl @s_g : tensor<8xf32>
  kiln.weight_decl @o : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @alpha : tensor<8xf32>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head_scale : tensor<4xf32>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %s = kiln.state @loop : !kiln.loop_state<hidden = 8>
    %out = kiln.loop %h, %s passes(2) : tensor<8xf32>, !kiln.loop_state<hidden = 8> body {
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
      kiln.far_field_capture %ff, %qn, %position {scale = 2.000000e+00 : f32, stride = 8 : i64} : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>, tensor<8xf32>
      kiln.far_field_push %ff, %kv, %position {scale = 2.000000e+00 : f32, window = 2 : i64} : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>, !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>
      kiln.kv_ring_write %kv, %kn, %v, %position : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>, tensor<4xf32>
      %a = kiln.window_attention %kv, %qn, %position far(%ff : !kiln.far_field<q_heads = 2, kv_heads = 1, landmarks = 2, head_dim = 4>) {num_q_heads = 2 : i64, rectify, scale = 2.000000e+00 : f32, window = 2 : i64} : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 4>, tensor<8xf32>
      %sg = kiln.weight @s_g : tensor<8xf32>
      %og = kiln.output_gate %a, %g, %sg : tensor<8xf32>
      %wo = kiln.weight @o : !kiln.weight<[8, 8], f16>
      %y = kiln.matvec %wo, %og : !kiln.weight<[8, 8], f16>, tensor<8xf32> -> tensor<8xf32>
      %al = kiln.weight @alpha : tensor<8xf32>
      %h2 = kiln.slerp_residual %x, %y, %al {eps = 1.0e-06 : f32} : tensor<8xf32>
      kiln.yield %h2 : tensor<8xf32>
    }
    %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %hw, %out : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %hs = kiln.weight @head_scale : tensor<4xf32>
    %ls = kiln.mul %l, %hs : tensor<4xf32>
    %lp = kiln.log_softmax %ls : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

// Early exit, three passes: after each pass but the last, mode 3, the
// read-out head writing the readback (logits; the host applies log_softmax),
// exit_test on them (threshold 0.9 as the config's double, not 0.9f); every
// later dispatch, the second exit test included, carries skip_if on the
// flag, so an exit leaves the read-out's logits as the call's result. The
// flag is a state word the runtime resets each call (stage.device_flags).

// CHECK-LABEL: kiln.family = "dory"
// CHECK: %[[H:[a-z0-9]+]]: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.embed"
// CHECK-SAME: %[[IN:[a-z0-9]+]]: memref<8xf32> {stage.buffer = #stage.buffer<kind = state, name = "loop.in"
// CHECK-SAME: %[[ST:[a-z0-9]+]]: memref<8xf32> {stage.buffer = #stage.buffer<kind = state, name = "loop.st"
// CHECK-SAME: %[[HS:[a-z0-9]+]]: memref<4xf32> {stage.buffer = #stage.buffer<kind = weight, name = "head_scale"
// CHECK-SAME: %[[RB:[a-z0-9]+]]: memref<4xf32> {stage.buffer = #stage.buffer<kind = readback, name = "readback"
// CHECK-SAME: %[[F:[a-z0-9]+]]: memref<1xi32> {stage.buffer = #stage.buffer<kind = state, name = "loop.exit", slot = {{[0-9]+}}, byte_size = 4
// CHECK-SAME: stage.device_flags = [#stage.device_flag<name = "early_exit", arg = [[FARG:[0-9]+]]>]
// CHECK-SAME: stage.readback = #stage.readback<arg = [[RBARG:[0-9]+]], count = 4, values = "Logits">
// CHECK: stage.dispatch "alpha" {
// CHECK: stage.dispatch "mix_exit_readout" {
// CHECK-NEXT: stage.dory_mix hidden(%[[H]] : memref<8xf32>) entry(%[[IN]] : memref<8xf32>) state(%[[ST]] : memref<8xf32>) {eps = 9.99999997E-7 : f32, mode = 3 : i64}
// CHECK: stage.dispatch "head" {
// CHECK-NEXT: stage.matvec {{.*}} input(%[[H]] : memref<8xf32>) out(%[[L:[a-z0-9]+]] : memref<4xf32>)
// CHECK: stage.dispatch "mul" {
// CHECK-NEXT: stage.mul ins(%[[L]], %[[HS]] : memref<4xf32>, memref<4xf32>) out(%arg[[RBARG]] : memref<4xf32>)
// CHECK: stage.dispatch "exit_test" {
// CHECK-NEXT: stage.exit_test input(%[[RB]] : memref<4xf32>) flag(%arg[[FARG]] : memref<1xi32>) {logits, threshold = 9.000000e-01 : f64}
// CHECK: stage.dispatch "mix_resume" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK-NEXT: stage.dory_mix hidden(%[[H]] : memref<8xf32>) {{.*}} mode = 4 : i64
// CHECK: stage.dispatch "w_1" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK: stage.dispatch "alpha_1" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK: stage.dispatch "mix_exit_readout_1" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK: stage.dispatch "head_1" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK: stage.dispatch "mul_1" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK-NEXT: stage.mul {{.*}} out(%[[RB]] : memref<4xf32>)
// CHECK: stage.dispatch "exit_test_1" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK-NEXT: stage.exit_test input(%[[RB]] : memref<4xf32>) flag(%[[F]] : memref<1xi32>) {logits, threshold = 9.000000e-01 : f64}
// CHECK: stage.dispatch "mix_resume_1" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK: stage.dispatch "w_2" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK: stage.dispatch "alpha_2" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK: stage.dispatch "mix_leave" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK-NEXT: stage.dory_mix {{.*}} mode = 2 : i64
// CHECK: stage.dispatch "head_2" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK: stage.dispatch "mul_2" skip_if(%[[F]] : memref<1xi32>) [0] {
// CHECK-NEXT: stage.mul {{.*}} out(%[[RB]] : memref<4xf32>)
// CHECK: stage.dispatch "sample" {
// CHECK-NEXT: stage.sample values(%[[RB]] : memref<4xf32>) params(%[[P]] : memref<8xi32>) out(%{{.*}} : memref<3xi32>) {logits}
// CHECK-NOT: stage.dispatch
kiln.model @exit dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 8 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.state_decl @loop : !kiln.loop_state<hidden = 8>
  kiln.weight_decl @w : !kiln.weight<[8, 8], f16>
  kiln.weight_decl @alpha : tensor<8xf32>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head_scale : tensor<4xf32>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %s = kiln.state @loop : !kiln.loop_state<hidden = 8>
    %out = kiln.loop %h, %s passes(3) exit_threshold(9.000000e-01) : tensor<8xf32>, !kiln.loop_state<hidden = 8> body {
    ^bb0(%x: tensor<8xf32>, %pass: index):
      %w = kiln.weight @w : !kiln.weight<[8, 8], f16>
      %y = kiln.matvec %w, %x : !kiln.weight<[8, 8], f16>, tensor<8xf32> -> tensor<8xf32>
      %a = kiln.weight @alpha : tensor<8xf32>
      %h2 = kiln.slerp_residual %x, %y, %a {eps = 1.0e-06 : f32} : tensor<8xf32>
      kiln.yield %h2 : tensor<8xf32>
    } readout {
    ^bb0(%r: tensor<8xf32>):
      %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
      %l = kiln.matvec %hw, %r : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
      %hs = kiln.weight @head_scale : tensor<4xf32>
      %ls = kiln.mul %l, %hs : tensor<4xf32>
      %lp = kiln.log_softmax %ls : tensor<4xf32>
      %p = kiln.max_prob %lp : tensor<4xf32>
      kiln.yield %p : f32
    }
    %hw = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %hw, %out : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %hs = kiln.weight @head_scale : tensor<4xf32>
    %ls = kiln.mul %l, %hs : tensor<4xf32>
    %lp = kiln.log_softmax %ls : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

// An MoE FFN (q8_2f, 3 experts of rank 2, growth shells): stage.router
// writes the chosen expert to a one-word scratch buffer; each routed matrix
// is one weight buffer of the 3 candidates stacked row-wise (tensor e at
// byte e x rows x groups x 16), read by a stage.matvec with that word as
// `expert`. The column field depends on the expert, so the routed mat-vecs
// read the plain norm output and apply col_scale themselves, while the
// shared gate/up read a folded copy. The routed down adds onto the shared.

// CHECK-LABEL: kiln.weight_format = "q8_2f"
// CHECK: %[[SEL:[a-z0-9]+]]: memref<1xi32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.expert", slot = {{[0-9]+}}, byte_size = 4
// CHECK-SAME: %[[WG:[a-z0-9]+]]: memref<24x1xvector<4xi32>> {stage.buffer = #stage.buffer<kind = weight, name = "moe.experts.*.gate", slot = {{[0-9]+}}, byte_size = 384, tensors = [#stage.tensor<name = "moe.experts.0.gate.q", dtype = "I8", shape = [8, 12], layout = "I8RowMajor", byte_offset = 0, row_pitch_bytes = 16>, #stage.tensor<name = "moe.experts.1.gate.q", dtype = "I8", shape = [8, 12], layout = "I8RowMajor", byte_offset = 128, row_pitch_bytes = 16>, #stage.tensor<name = "moe.experts.2.gate.q", dtype = "I8", shape = [8, 12], layout = "I8RowMajor", byte_offset = 256, row_pitch_bytes = 16>]>}
// CHECK-SAME: %[[SG:[a-z0-9]+]]: memref<24xf32> {stage.buffer = #stage.buffer<kind = weight, name = "moe.experts.*.gate.row_scale", slot = {{[0-9]+}}, byte_size = 96, tensors = [#stage.tensor<name = "moe.experts.0.gate.row_scale", dtype = "F32", shape = [8], layout = "F32", byte_offset = 0>, #stage.tensor<{{[^>]*}}byte_offset = 32>, #stage.tensor<name = "moe.experts.2.gate.row_scale", dtype = "F32", shape = [8], layout = "F32", byte_offset = 64>]>}
// CHECK-SAME: %[[TG:[a-z0-9]+]]: memref<36xf32> {stage.buffer = #stage.buffer<kind = weight, name = "moe.experts.*.gate.col_scale", slot = {{[0-9]+}}, byte_size = 144, tensors = [#stage.tensor<name = "moe.experts.0.gate.col_scale", dtype = "F32", shape = [12], layout = "F32", byte_offset = 0>, #stage.tensor<{{[^>]*}}byte_offset = 48>, #stage.tensor<name = "moe.experts.2.gate.col_scale", dtype = "F32", shape = [12], layout = "F32", byte_offset = 96>]>}
// CHECK: stage.dispatch "post_norm" {
// CHECK-NEXT: stage.rmsnorm residual(%{{.*}}) weight(%{{.*}}) outs(%[[X:[a-z0-9]+]] : memref<12xf32>) {eps
// CHECK-NEXT: stage.rmsnorm {{.*}} folds(
// CHECK: stage.dispatch "ffn_down" {
// CHECK-NEXT: stage.matvec {{.*}} out(%[[SHARED:[a-z0-9]+]] : memref<12xf32>) {format = #stage.format<q8_2f>}
// CHECK: stage.dispatch "router" {
// CHECK-NEXT: stage.router input(%[[X]] : memref<12xf32>) centres(%{{.*}} : memref<3x12xf32>) basis(%{{.*}} : memref<3x2x12xf32>) bias(%{{.*}} : memref<3xf32>) shells(%{{.*}} : memref<3xf32>) selected(%[[SEL]] : memref<1xi32>)
// CHECK: stage.dispatch "moe_experts___gate" {
// CHECK-NEXT: stage.matvec weight(%[[WG]] : memref<24x1xvector<4xi32>>) expert(%[[SEL]] : memref<1xi32>) row_scale(%[[SG]] : memref<24xf32>) col_scale(%[[TG]] : memref<36xf32>) input(%[[X]] : memref<12xf32>) out(%[[G:[a-z0-9]+]] : memref<8xf32>) {experts = 3 : i64, format = #stage.format<q8_2f>}
// CHECK: stage.dispatch "moe_experts___up" {
// CHECK-NEXT: stage.matvec {{.*}} expert(%[[SEL]] : memref<1xi32>) {{.*}} input(%[[X]] : memref<12xf32>) out(%[[U:[a-z0-9]+]] : memref<8xf32>) {experts = 3 : i64, format = #stage.format<q8_2f>}
// CHECK: stage.dispatch "silu_mul_1" {
// CHECK-NEXT: stage.silu_mul ins(%[[G]], %[[U]] : memref<8xf32>, memref<8xf32>) out(%[[A:[a-z0-9]+]] : memref<8xf32>){{$}}
// CHECK: stage.dispatch "moe_experts___down" {
// CHECK-NEXT: stage.matvec weight(%{{.*}} : memref<36x1xvector<4xi32>>) expert(%[[SEL]] : memref<1xi32>) row_scale(%{{.*}} : memref<36xf32>) col_scale(%{{.*}} : memref<24xf32>) input(%[[A]] : memref<8xf32>) out(%[[ROUTED:[a-z0-9]+]] : memref<12xf32>) {experts = 3 : i64, format = #stage.format<q8_2f>}
// CHECK: stage.add ins(%[[SHARED]], %[[ROUTED]] : memref<12xf32>, memref<12xf32>)
kiln.model @moe_q8 embryo attributes {eps = 1.0e-06 : f32, hidden = 12 : i64, intermediate = 8 : i64, vocab = 6 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[6, 12], f16>
  kiln.weight_decl @post_norm : tensor<12xf32>
  kiln.weight_decl @ffn.gate : !kiln.weight<[8, 12], q8_2f>
  kiln.weight_decl @ffn.up : !kiln.weight<[8, 12], q8_2f>
  kiln.weight_decl @ffn.down : !kiln.weight<[12, 8], q8_2f>
  kiln.weight_decl @moe.centres : tensor<3x12xf32>
  kiln.weight_decl @moe.basis : tensor<3x2x12xf32>
  kiln.weight_decl @moe.bias : tensor<3xf32>
  kiln.weight_decl @moe.shells : tensor<3xf32>
  kiln.weight_decl @moe.experts.0.gate : !kiln.weight<[8, 12], q8_2f>
  kiln.weight_decl @moe.experts.1.gate : !kiln.weight<[8, 12], q8_2f>
  kiln.weight_decl @moe.experts.2.gate : !kiln.weight<[8, 12], q8_2f>
  kiln.weight_decl @moe.experts.0.up : !kiln.weight<[8, 12], q8_2f>
  kiln.weight_decl @moe.experts.1.up : !kiln.weight<[8, 12], q8_2f>
  kiln.weight_decl @moe.experts.2.up : !kiln.weight<[8, 12], q8_2f>
  kiln.weight_decl @moe.experts.0.down : !kiln.weight<[12, 8], q8_2f>
  kiln.weight_decl @moe.experts.1.down : !kiln.weight<[12, 8], q8_2f>
  kiln.weight_decl @moe.experts.2.down : !kiln.weight<[12, 8], q8_2f>
  kiln.weight_decl @final_norm : tensor<12xf32>
  kiln.weight_decl @head.clusters : tensor<2x12xf32>
  kiln.weight_decl @head.rows : !kiln.weight<[6, 12], f16>
  kiln.step {
  ^bb0(%token: index, %position: index, %top_p: f32):
    %e = kiln.weight @embed : !kiln.weight<[6, 12], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[6, 12], f16> -> tensor<12xf32>
    %pn = kiln.weight @post_norm : tensor<12xf32>
    %x2 = kiln.rms_norm %h, %pn {eps = 1.0e-06 : f32, zero_centered} : tensor<12xf32>
    %wg = kiln.weight @ffn.gate : !kiln.weight<[8, 12], q8_2f>
    %g = kiln.matvec %wg, %x2 : !kiln.weight<[8, 12], q8_2f>, tensor<12xf32> -> tensor<8xf32>
    %wu = kiln.weight @ffn.up : !kiln.weight<[8, 12], q8_2f>
    %u = kiln.matvec %wu, %x2 : !kiln.weight<[8, 12], q8_2f>, tensor<12xf32> -> tensor<8xf32>
    %a = kiln.swiglu %g, %u : tensor<8xf32>
    %wd = kiln.weight @ffn.down : !kiln.weight<[12, 8], q8_2f>
    %f = kiln.matvec %wd, %a : !kiln.weight<[12, 8], q8_2f>, tensor<8xf32> -> tensor<12xf32>
    %mu = kiln.weight @moe.centres : tensor<3x12xf32>
    %bu = kiln.weight @moe.basis : tensor<3x2x12xf32>
    %bb = kiln.weight @moe.bias : tensor<3xf32>
    %sh = kiln.weight @moe.shells : tensor<3xf32>
    %ex = kiln.resonance_route %x2, %mu, %bb basis(%bu : tensor<3x2x12xf32>) shells(%sh : tensor<3xf32>) : tensor<12xf32>, tensor<3x12xf32>, tensor<3xf32>
    %g0 = kiln.weight @moe.experts.0.gate : !kiln.weight<[8, 12], q8_2f>
    %g1 = kiln.weight @moe.experts.1.gate : !kiln.weight<[8, 12], q8_2f>
    %g2 = kiln.weight @moe.experts.2.gate : !kiln.weight<[8, 12], q8_2f>
    %eg = kiln.expert_select %ex[%g0, %g1, %g2] : !kiln.weight<[8, 12], q8_2f>, !kiln.weight<[8, 12], q8_2f>, !kiln.weight<[8, 12], q8_2f> -> !kiln.weight<[8, 12], q8_2f>
    %u0 = kiln.weight @moe.experts.0.up : !kiln.weight<[8, 12], q8_2f>
    %u1 = kiln.weight @moe.experts.1.up : !kiln.weight<[8, 12], q8_2f>
    %u2 = kiln.weight @moe.experts.2.up : !kiln.weight<[8, 12], q8_2f>
    %eu = kiln.expert_select %ex[%u0, %u1, %u2] : !kiln.weight<[8, 12], q8_2f>, !kiln.weight<[8, 12], q8_2f>, !kiln.weight<[8, 12], q8_2f> -> !kiln.weight<[8, 12], q8_2f>
    %d0 = kiln.weight @moe.experts.0.down : !kiln.weight<[12, 8], q8_2f>
    %d1 = kiln.weight @moe.experts.1.down : !kiln.weight<[12, 8], q8_2f>
    %d2 = kiln.weight @moe.experts.2.down : !kiln.weight<[12, 8], q8_2f>
    %ed = kiln.expert_select %ex[%d0, %d1, %d2] : !kiln.weight<[12, 8], q8_2f>, !kiln.weight<[12, 8], q8_2f>, !kiln.weight<[12, 8], q8_2f> -> !kiln.weight<[12, 8], q8_2f>
    %rg = kiln.matvec %eg, %x2 : !kiln.weight<[8, 12], q8_2f>, tensor<12xf32> -> tensor<8xf32>
    %ru = kiln.matvec %eu, %x2 : !kiln.weight<[8, 12], q8_2f>, tensor<12xf32> -> tensor<8xf32>
    %ra = kiln.swiglu %rg, %ru : tensor<8xf32>
    %rd = kiln.matvec %ed, %ra : !kiln.weight<[12, 8], q8_2f>, tensor<8xf32> -> tensor<12xf32>
    %ff = kiln.add %f, %rd : tensor<12xf32>
    %h2 = kiln.add %h, %ff : tensor<12xf32>
    %w = kiln.weight @final_norm : tensor<12xf32>
    %x = kiln.rms_norm %h2, %w {eps = 1.0e-06 : f32, zero_centered} : tensor<12xf32>
    %c = kiln.weight @head.clusters : tensor<2x12xf32>
    %y = kiln.matvec %c, %x : tensor<2x12xf32>, tensor<12xf32> -> tensor<2xf32>
    %lc = kiln.log_softmax %y : tensor<2xf32>
    %gate = kiln.top_p_gate %lc, %top_p : tensor<2xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[6, 12], f16>
    %logp = kiln.clustered_head %r, %x, %lc, %gate {cluster_size = 3 : i64, num_clusters = 2 : i64} : !kiln.weight<[6, 12], f16>, tensor<12xf32>, tensor<2xf32> -> tensor<6xf32>
    kiln.return %logp : tensor<6xf32>
  }
}

// -----

// f16, candidates named with no common prefix or suffix: each stack is its
// own buffer ("*" names them all; they are keyed by their candidates), the
// routed mat-vecs take no scales, and a router without basis or shells.

// CHECK-LABEL: kiln.weight_format = "f16"
// CHECK: memref<16x2xvector<4xi32>> {stage.buffer = #stage.buffer<kind = weight, name = "*", slot = {{[0-9]+}}, byte_size = 512, tensors = [#stage.tensor<name = "a", dtype = "F16", shape = [8, 12], layout = "F16RowMajor", byte_offset = 0, row_pitch_bytes = 32>, #stage.tensor<name = "b", dtype = "F16", shape = [8, 12], layout = "F16RowMajor", byte_offset = 256, row_pitch_bytes = 32>]>}
// CHECK-SAME: memref<16x2xvector<4xi32>> {stage.buffer = #stage.buffer<kind = weight, name = "*", slot = {{[0-9]+}}, byte_size = 512, tensors = [#stage.tensor<name = "c", dtype = "F16", {{[^>]*}}byte_offset = 0, {{[^>]*}}>, #stage.tensor<name = "d", dtype = "F16", shape = [8, 12], layout = "F16RowMajor", byte_offset = 256,
// CHECK-SAME: memref<24x1xvector<4xi32>> {stage.buffer = #stage.buffer<kind = weight, name = "*", slot = {{[0-9]+}}, byte_size = 384, tensors = [#stage.tensor<name = "e", dtype = "F16", shape = [12, 8], layout = "F16RowMajor", byte_offset = 0, row_pitch_bytes = 16>, #stage.tensor<name = "f", {{[^>]*}}byte_offset = 192,
// CHECK: stage.router input(%{{.*}} : memref<12xf32>) centres(%{{.*}} : memref<2x12xf32>) bias(%{{.*}} : memref<2xf32>) selected(%[[SEL:[a-z0-9]+]] : memref<1xi32>)
// CHECK: stage.matvec weight(%[[WA:[a-z0-9]+]] : memref<16x2xvector<4xi32>>) expert(%[[SEL]] : memref<1xi32>) input(
// CHECK-SAME: {experts = 2 : i64, format = #stage.format<f16>}
// CHECK: stage.matvec weight(%[[WC:[a-z0-9]+]] : memref<16x2xvector<4xi32>>) expert(%[[SEL]] : memref<1xi32>) input(
// CHECK: stage.matvec weight(%{{.*}} : memref<24x1xvector<4xi32>>) expert(%[[SEL]] : memref<1xi32>) input(
kiln.model @moe_names embryo attributes {eps = 1.0e-06 : f32, hidden = 12 : i64, intermediate = 8 : i64, vocab = 6 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[6, 12], f16>
  kiln.weight_decl @post_norm : tensor<12xf32>
  kiln.weight_decl @mu : tensor<2x12xf32>
  kiln.weight_decl @bias : tensor<2xf32>
  kiln.weight_decl @a : !kiln.weight<[8, 12], f16>
  kiln.weight_decl @b : !kiln.weight<[8, 12], f16>
  kiln.weight_decl @c : !kiln.weight<[8, 12], f16>
  kiln.weight_decl @d : !kiln.weight<[8, 12], f16>
  kiln.weight_decl @e : !kiln.weight<[12, 8], f16>
  kiln.weight_decl @f : !kiln.weight<[12, 8], f16>
  kiln.weight_decl @final_norm : tensor<12xf32>
  kiln.weight_decl @head.clusters : tensor<2x12xf32>
  kiln.weight_decl @head.rows : !kiln.weight<[6, 12], f16>
  kiln.step {
  ^bb0(%token: index, %position: index, %top_p: f32):
    %em = kiln.weight @embed : !kiln.weight<[6, 12], f16>
    %h = kiln.embed %em[%token] : !kiln.weight<[6, 12], f16> -> tensor<12xf32>
    %pn = kiln.weight @post_norm : tensor<12xf32>
    %x2 = kiln.rms_norm %h, %pn {eps = 1.0e-06 : f32, zero_centered} : tensor<12xf32>
    %mu = kiln.weight @mu : tensor<2x12xf32>
    %bb = kiln.weight @bias : tensor<2xf32>
    %ex = kiln.resonance_route %x2, %mu, %bb : tensor<12xf32>, tensor<2x12xf32>, tensor<2xf32>
    %a = kiln.weight @a : !kiln.weight<[8, 12], f16>
    %b = kiln.weight @b : !kiln.weight<[8, 12], f16>
    %c = kiln.weight @c : !kiln.weight<[8, 12], f16>
    %d = kiln.weight @d : !kiln.weight<[8, 12], f16>
    %e = kiln.weight @e : !kiln.weight<[12, 8], f16>
    %f = kiln.weight @f : !kiln.weight<[12, 8], f16>
    %sg = kiln.expert_select %ex[%a, %b] : !kiln.weight<[8, 12], f16>, !kiln.weight<[8, 12], f16> -> !kiln.weight<[8, 12], f16>
    %su = kiln.expert_select %ex[%c, %d] : !kiln.weight<[8, 12], f16>, !kiln.weight<[8, 12], f16> -> !kiln.weight<[8, 12], f16>
    %sd = kiln.expert_select %ex[%e, %f] : !kiln.weight<[12, 8], f16>, !kiln.weight<[12, 8], f16> -> !kiln.weight<[12, 8], f16>
    %rg = kiln.matvec %sg, %x2 : !kiln.weight<[8, 12], f16>, tensor<12xf32> -> tensor<8xf32>
    %ru = kiln.matvec %su, %x2 : !kiln.weight<[8, 12], f16>, tensor<12xf32> -> tensor<8xf32>
    %ra = kiln.swiglu %rg, %ru : tensor<8xf32>
    %rd = kiln.matvec %sd, %ra : !kiln.weight<[12, 8], f16>, tensor<8xf32> -> tensor<12xf32>
    %h2 = kiln.add %h, %rd : tensor<12xf32>
    %w = kiln.weight @final_norm : tensor<12xf32>
    %x = kiln.rms_norm %h2, %w {eps = 1.0e-06 : f32, zero_centered} : tensor<12xf32>
    %cl = kiln.weight @head.clusters : tensor<2x12xf32>
    %y = kiln.matvec %cl, %x : tensor<2x12xf32>, tensor<12xf32> -> tensor<2xf32>
    %lc = kiln.log_softmax %y : tensor<2xf32>
    %gate = kiln.top_p_gate %lc, %top_p : tensor<2xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[6, 12], f16>
    %logp = kiln.clustered_head %r, %x, %lc, %gate {cluster_size = 3 : i64, num_clusters = 2 : i64} : !kiln.weight<[6, 12], f16>, tensor<12xf32>, tensor<2xf32> -> tensor<6xf32>
    kiln.return %logp : tensor<6xf32>
  }
}
