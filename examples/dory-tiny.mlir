// dory-tiny: hand-checked kiln IR for examples/dory-tiny.json (sizes match it).
kiln.model @dory_tiny dory attributes {eps = 1.0e-06 : f32, hidden = 64 : i64, intermediate = 128 : i64, vocab = 256 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[256, 64], f16>
  kiln.state_decl @loop : !kiln.loop_state<hidden = 64>
  kiln.weight_decl @layers.0.attn.q : !kiln.weight<[96, 64], f16>
  kiln.weight_decl @layers.0.attn.k : !kiln.weight<[32, 64], f16>
  kiln.weight_decl @layers.0.attn.v : !kiln.weight<[32, 64], f16>
  kiln.weight_decl @layers.0.attn.gate : !kiln.weight<[96, 64], f16>
  kiln.weight_decl @layers.0.attn.s_qk : tensor<6x16xf32>
  kiln.state_decl @layers.0.attn.far : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>
  kiln.state_decl @layers.0.attn.kv : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
  kiln.weight_decl @layers.0.attn.s_g : tensor<96xf32>
  kiln.weight_decl @layers.0.attn.o : !kiln.weight<[64, 96], f16>
  kiln.weight_decl @layers.0.alpha_attn : tensor<64xf32>
  kiln.weight_decl @layers.0.mlp.gate : !kiln.weight<[128, 64], f16>
  kiln.weight_decl @layers.0.mlp.up : !kiln.weight<[128, 64], f16>
  kiln.weight_decl @layers.0.mlp.s_u : tensor<128xf32>
  kiln.weight_decl @layers.0.mlp.s_v : tensor<128xf32>
  kiln.weight_decl @layers.0.mlp.down : !kiln.weight<[64, 128], f16>
  kiln.weight_decl @layers.0.alpha_mlp : tensor<64xf32>
  kiln.weight_decl @layers.1.attn.q : !kiln.weight<[96, 64], f16>
  kiln.weight_decl @layers.1.attn.k : !kiln.weight<[32, 64], f16>
  kiln.weight_decl @layers.1.attn.v : !kiln.weight<[32, 64], f16>
  kiln.weight_decl @layers.1.attn.gate : !kiln.weight<[96, 64], f16>
  kiln.weight_decl @layers.1.attn.s_qk : tensor<6x16xf32>
  kiln.state_decl @layers.1.attn.far : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>
  kiln.state_decl @layers.1.attn.kv : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
  kiln.weight_decl @layers.1.attn.s_g : tensor<96xf32>
  kiln.weight_decl @layers.1.attn.o : !kiln.weight<[64, 96], f16>
  kiln.weight_decl @layers.1.alpha_attn : tensor<64xf32>
  kiln.weight_decl @layers.1.mlp.gate : !kiln.weight<[128, 64], f16>
  kiln.weight_decl @layers.1.mlp.up : !kiln.weight<[128, 64], f16>
  kiln.weight_decl @layers.1.mlp.s_u : tensor<128xf32>
  kiln.weight_decl @layers.1.mlp.s_v : tensor<128xf32>
  kiln.weight_decl @layers.1.mlp.down : !kiln.weight<[64, 128], f16>
  kiln.weight_decl @layers.1.alpha_mlp : tensor<64xf32>
  kiln.weight_decl @head : !kiln.weight<[256, 64], f16>
  kiln.weight_decl @head_scale : tensor<256xf32>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %w1 = kiln.weight @embed : !kiln.weight<[256, 64], f16>
    %h2 = kiln.embed %w1[%token] : !kiln.weight<[256, 64], f16> -> tensor<64xf32>
    %s3 = kiln.state @loop : !kiln.loop_state<hidden = 64>
    %h4 = kiln.loop %h2, %s3 passes(2) exit_threshold(9.000000e-01) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
    ^bb0(%x: tensor<64xf32>, %pass: index):
      // layer 0
      %w5 = kiln.weight @layers.0.attn.q : !kiln.weight<[96, 64], f16>
      %y6 = kiln.matvec %w5, %x : !kiln.weight<[96, 64], f16>, tensor<64xf32> -> tensor<96xf32>
      %w7 = kiln.weight @layers.0.attn.k : !kiln.weight<[32, 64], f16>
      %y8 = kiln.matvec %w7, %x : !kiln.weight<[32, 64], f16>, tensor<64xf32> -> tensor<32xf32>
      %w9 = kiln.weight @layers.0.attn.v : !kiln.weight<[32, 64], f16>
      %y10 = kiln.matvec %w9, %x : !kiln.weight<[32, 64], f16>, tensor<64xf32> -> tensor<32xf32>
      %w11 = kiln.weight @layers.0.attn.gate : !kiln.weight<[96, 64], f16>
      %y12 = kiln.matvec %w11, %x : !kiln.weight<[96, 64], f16>, tensor<64xf32> -> tensor<96xf32>
      %qr13 = kiln.rotary %y6, %position {head_dim = 16 : i64, heads = 6 : i64, rotary_dim = 16 : i64, theta = 1.000000e+04 : f32} : tensor<96xf32>
      %kr14 = kiln.rotary %y8, %position {head_dim = 16 : i64, heads = 2 : i64, rotary_dim = 16 : i64, theta = 1.000000e+04 : f32} : tensor<32xf32>
      %w15 = kiln.weight @layers.0.attn.s_qk : tensor<6x16xf32>
      %qn16, %kn17 = kiln.qk_prep %qr13, %kr14, %w15 {eps = 1.0e-06 : f32, head_dim = 16 : i64, num_kv_heads = 2 : i64, num_q_heads = 6 : i64} : tensor<96xf32>, tensor<32xf32>, tensor<6x16xf32>
      %s18 = kiln.state @layers.0.attn.far : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>
      %s19 = kiln.state @layers.0.attn.kv : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
      kiln.far_field_capture %s18, %qn16, %position {scale = 4.000000e+00 : f32, stride = 8 : i64} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, tensor<96xf32>
      kiln.far_field_push %s18, %s19, %position {scale = 4.000000e+00 : f32, window = 8 : i64} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
      kiln.kv_ring_write %s19, %kn17, %y10, %position : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<32xf32>
      %o20 = kiln.window_attention %s19, %qn16, %position far(%s18 : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>) {num_q_heads = 6 : i64, rectify, scale = 4.000000e+00 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
      %w21 = kiln.weight @layers.0.attn.s_g : tensor<96xf32>
      %o22 = kiln.output_gate %o20, %y12, %w21 : tensor<96xf32>
      %w23 = kiln.weight @layers.0.attn.o : !kiln.weight<[64, 96], f16>
      %y24 = kiln.matvec %w23, %o22 : !kiln.weight<[64, 96], f16>, tensor<96xf32> -> tensor<64xf32>
      %w25 = kiln.weight @layers.0.alpha_attn : tensor<64xf32>
      %h26 = kiln.slerp_residual %x, %y24, %w25 {eps = 1.0e-06 : f32} : tensor<64xf32>
      %w27 = kiln.weight @layers.0.mlp.gate : !kiln.weight<[128, 64], f16>
      %y28 = kiln.matvec %w27, %h26 : !kiln.weight<[128, 64], f16>, tensor<64xf32> -> tensor<128xf32>
      %w29 = kiln.weight @layers.0.mlp.up : !kiln.weight<[128, 64], f16>
      %y30 = kiln.matvec %w29, %h26 : !kiln.weight<[128, 64], f16>, tensor<64xf32> -> tensor<128xf32>
      %w31 = kiln.weight @layers.0.mlp.s_u : tensor<128xf32>
      %w32 = kiln.weight @layers.0.mlp.s_v : tensor<128xf32>
      %f33 = kiln.scaled_swiglu %y28, %y30, %w31, %w32 : tensor<128xf32>
      %w34 = kiln.weight @layers.0.mlp.down : !kiln.weight<[64, 128], f16>
      %y35 = kiln.matvec %w34, %f33 : !kiln.weight<[64, 128], f16>, tensor<128xf32> -> tensor<64xf32>
      %w36 = kiln.weight @layers.0.alpha_mlp : tensor<64xf32>
      %h37 = kiln.slerp_residual %h26, %y35, %w36 {eps = 1.0e-06 : f32} : tensor<64xf32>
      // layer 1
      %w38 = kiln.weight @layers.1.attn.q : !kiln.weight<[96, 64], f16>
      %y39 = kiln.matvec %w38, %h37 : !kiln.weight<[96, 64], f16>, tensor<64xf32> -> tensor<96xf32>
      %w40 = kiln.weight @layers.1.attn.k : !kiln.weight<[32, 64], f16>
      %y41 = kiln.matvec %w40, %h37 : !kiln.weight<[32, 64], f16>, tensor<64xf32> -> tensor<32xf32>
      %w42 = kiln.weight @layers.1.attn.v : !kiln.weight<[32, 64], f16>
      %y43 = kiln.matvec %w42, %h37 : !kiln.weight<[32, 64], f16>, tensor<64xf32> -> tensor<32xf32>
      %w44 = kiln.weight @layers.1.attn.gate : !kiln.weight<[96, 64], f16>
      %y45 = kiln.matvec %w44, %h37 : !kiln.weight<[96, 64], f16>, tensor<64xf32> -> tensor<96xf32>
      %qr46 = kiln.rotary %y39, %position {head_dim = 16 : i64, heads = 6 : i64, rotary_dim = 16 : i64, theta = 1.000000e+04 : f32} : tensor<96xf32>
      %kr47 = kiln.rotary %y41, %position {head_dim = 16 : i64, heads = 2 : i64, rotary_dim = 16 : i64, theta = 1.000000e+04 : f32} : tensor<32xf32>
      %w48 = kiln.weight @layers.1.attn.s_qk : tensor<6x16xf32>
      %qn49, %kn50 = kiln.qk_prep %qr46, %kr47, %w48 {eps = 1.0e-06 : f32, head_dim = 16 : i64, num_kv_heads = 2 : i64, num_q_heads = 6 : i64} : tensor<96xf32>, tensor<32xf32>, tensor<6x16xf32>
      %s51 = kiln.state @layers.1.attn.far : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>
      %s52 = kiln.state @layers.1.attn.kv : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
      kiln.far_field_capture %s51, %qn49, %position {scale = 4.000000e+00 : f32, stride = 8 : i64} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, tensor<96xf32>
      kiln.far_field_push %s51, %s52, %position {scale = 4.000000e+00 : f32, window = 8 : i64} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
      kiln.kv_ring_write %s52, %kn50, %y43, %position : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<32xf32>
      %o53 = kiln.window_attention %s52, %qn49, %position far(%s51 : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>) {num_q_heads = 6 : i64, rectify, scale = 4.000000e+00 : f32, window = 8 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
      %w54 = kiln.weight @layers.1.attn.s_g : tensor<96xf32>
      %o55 = kiln.output_gate %o53, %y45, %w54 : tensor<96xf32>
      %w56 = kiln.weight @layers.1.attn.o : !kiln.weight<[64, 96], f16>
      %y57 = kiln.matvec %w56, %o55 : !kiln.weight<[64, 96], f16>, tensor<96xf32> -> tensor<64xf32>
      %w58 = kiln.weight @layers.1.alpha_attn : tensor<64xf32>
      %h59 = kiln.slerp_residual %h37, %y57, %w58 {eps = 1.0e-06 : f32} : tensor<64xf32>
      %w60 = kiln.weight @layers.1.mlp.gate : !kiln.weight<[128, 64], f16>
      %y61 = kiln.matvec %w60, %h59 : !kiln.weight<[128, 64], f16>, tensor<64xf32> -> tensor<128xf32>
      %w62 = kiln.weight @layers.1.mlp.up : !kiln.weight<[128, 64], f16>
      %y63 = kiln.matvec %w62, %h59 : !kiln.weight<[128, 64], f16>, tensor<64xf32> -> tensor<128xf32>
      %w64 = kiln.weight @layers.1.mlp.s_u : tensor<128xf32>
      %w65 = kiln.weight @layers.1.mlp.s_v : tensor<128xf32>
      %f66 = kiln.scaled_swiglu %y61, %y63, %w64, %w65 : tensor<128xf32>
      %w67 = kiln.weight @layers.1.mlp.down : !kiln.weight<[64, 128], f16>
      %y68 = kiln.matvec %w67, %f66 : !kiln.weight<[64, 128], f16>, tensor<128xf32> -> tensor<64xf32>
      %w69 = kiln.weight @layers.1.alpha_mlp : tensor<64xf32>
      %h70 = kiln.slerp_residual %h59, %y68, %w69 {eps = 1.0e-06 : f32} : tensor<64xf32>
      kiln.yield %h70 : tensor<64xf32>
    } readout {
    ^bb0(%r: tensor<64xf32>):
      %w71 = kiln.weight @head : !kiln.weight<[256, 64], f16>
      %y72 = kiln.matvec %w71, %r : !kiln.weight<[256, 64], f16>, tensor<64xf32> -> tensor<256xf32>
      %w73 = kiln.weight @head_scale : tensor<256xf32>
      %l74 = kiln.mul %y72, %w73 : tensor<256xf32>
      %logp75 = kiln.log_softmax %l74 : tensor<256xf32>
      %p76 = kiln.max_prob %logp75 : tensor<256xf32>
      kiln.yield %p76 : f32
    }
    %w77 = kiln.weight @head : !kiln.weight<[256, 64], f16>
    %y78 = kiln.matvec %w77, %h4 : !kiln.weight<[256, 64], f16>, tensor<64xf32> -> tensor<256xf32>
    %w79 = kiln.weight @head_scale : tensor<256xf32>
    %l80 = kiln.mul %y78, %w79 : tensor<256xf32>
    %logp81 = kiln.log_softmax %l80 : tensor<256xf32>
    kiln.return %logp81 : tensor<256xf32>
  }
}
