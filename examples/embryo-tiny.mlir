// embryo-tiny: hand-checked kiln IR for examples/embryo-tiny.json (sizes match it).
kiln.model @embryo_tiny embryo attributes {eps = 1.0e-06 : f32, hidden = 72 : i64, intermediate = 96 : i64, vocab = 256 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[256, 72], f16>
  kiln.weight_decl @layers.0.in_norm : tensor<72xf32>
  kiln.weight_decl @layers.0.gdn.qkv : !kiln.weight<[68, 72], q8_2f>
  kiln.state_decl @layers.0.gdn.conv_ring : !kiln.conv_ring<channels = 68, taps = 4>
  kiln.weight_decl @layers.0.gdn.conv : tensor<68x4xf32>
  kiln.weight_decl @layers.0.gdn.z : !kiln.weight<[36, 72], q8_2f>
  kiln.weight_decl @layers.0.gdn.a : !kiln.weight<[3, 72], q8_2f>
  kiln.weight_decl @layers.0.gdn.b : !kiln.weight<[3, 72], q8_2f>
  kiln.weight_decl @layers.0.gdn.A_log : tensor<3xf32>
  kiln.weight_decl @layers.0.gdn.dt_bias : tensor<3xf32>
  kiln.state_decl @layers.0.gdn.state : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>
  kiln.weight_decl @layers.0.gdn.norm : tensor<12xf32>
  kiln.weight_decl @layers.0.gdn.out : !kiln.weight<[72, 36], q8_2f>
  kiln.weight_decl @layers.0.post_norm : tensor<72xf32>
  kiln.weight_decl @layers.0.ffn.gate : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.0.ffn.up : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.0.ffn.down : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.1.in_norm : tensor<72xf32>
  kiln.weight_decl @layers.1.attn.q : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.1.attn.k : !kiln.weight<[32, 72], q8_2f>
  kiln.weight_decl @layers.1.attn.v : !kiln.weight<[32, 72], q8_2f>
  kiln.state_decl @layers.1.attn.kv : !kiln.kv_ring<kv_heads = 2, capacity = 16, head_dim = 16>
  kiln.weight_decl @layers.1.attn.sink_k : tensor<2x2x16xf32>
  kiln.weight_decl @layers.1.attn.sink_v : tensor<2x2x16xf32>
  kiln.weight_decl @layers.1.attn.o : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.1.post_norm : tensor<72xf32>
  kiln.weight_decl @layers.1.ffn.gate : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.1.ffn.up : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.1.ffn.down : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.1.moe.centres : tensor<4x72xf32>
  kiln.weight_decl @layers.1.moe.basis : tensor<4x2x72xf32>
  kiln.weight_decl @layers.1.moe.bias : tensor<4xf32>
  kiln.weight_decl @layers.1.moe.shells : tensor<4xf32>
  kiln.weight_decl @layers.1.moe.experts.0.gate : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.1.moe.experts.1.gate : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.1.moe.experts.2.gate : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.1.moe.experts.3.gate : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.1.moe.experts.0.up : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.1.moe.experts.1.up : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.1.moe.experts.2.up : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.1.moe.experts.3.up : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.1.moe.experts.0.down : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.1.moe.experts.1.down : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.1.moe.experts.2.down : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.1.moe.experts.3.down : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.2.in_norm : tensor<72xf32>
  kiln.weight_decl @layers.2.gdn.qkv : !kiln.weight<[68, 72], q8_2f>
  kiln.state_decl @layers.2.gdn.conv_ring : !kiln.conv_ring<channels = 68, taps = 4>
  kiln.weight_decl @layers.2.gdn.conv : tensor<68x4xf32>
  kiln.weight_decl @layers.2.gdn.z : !kiln.weight<[36, 72], q8_2f>
  kiln.weight_decl @layers.2.gdn.a : !kiln.weight<[3, 72], q8_2f>
  kiln.weight_decl @layers.2.gdn.b : !kiln.weight<[3, 72], q8_2f>
  kiln.weight_decl @layers.2.gdn.A_log : tensor<3xf32>
  kiln.weight_decl @layers.2.gdn.dt_bias : tensor<3xf32>
  kiln.state_decl @layers.2.gdn.state : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>
  kiln.weight_decl @layers.2.gdn.norm : tensor<12xf32>
  kiln.weight_decl @layers.2.gdn.out : !kiln.weight<[72, 36], q8_2f>
  kiln.weight_decl @layers.2.post_norm : tensor<72xf32>
  kiln.weight_decl @layers.2.ffn.gate : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.2.ffn.up : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.2.ffn.down : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.2.moe.centres : tensor<4x72xf32>
  kiln.weight_decl @layers.2.moe.basis : tensor<4x2x72xf32>
  kiln.weight_decl @layers.2.moe.bias : tensor<4xf32>
  kiln.weight_decl @layers.2.moe.shells : tensor<4xf32>
  kiln.weight_decl @layers.2.moe.experts.0.gate : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.2.moe.experts.1.gate : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.2.moe.experts.2.gate : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.2.moe.experts.3.gate : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.2.moe.experts.0.up : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.2.moe.experts.1.up : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.2.moe.experts.2.up : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.2.moe.experts.3.up : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.2.moe.experts.0.down : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.2.moe.experts.1.down : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.2.moe.experts.2.down : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.2.moe.experts.3.down : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.3.in_norm : tensor<72xf32>
  kiln.weight_decl @layers.3.attn.q : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.3.attn.k : !kiln.weight<[32, 72], q8_2f>
  kiln.weight_decl @layers.3.attn.v : !kiln.weight<[32, 72], q8_2f>
  kiln.state_decl @layers.3.attn.kv : !kiln.kv_ring<kv_heads = 2, capacity = 16, head_dim = 16>
  kiln.weight_decl @layers.3.attn.sink_k : tensor<2x2x16xf32>
  kiln.weight_decl @layers.3.attn.sink_v : tensor<2x2x16xf32>
  kiln.weight_decl @layers.3.attn.o : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @layers.3.post_norm : tensor<72xf32>
  kiln.weight_decl @layers.3.ffn.gate : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.3.ffn.up : !kiln.weight<[96, 72], q8_2f>
  kiln.weight_decl @layers.3.ffn.down : !kiln.weight<[72, 96], q8_2f>
  kiln.weight_decl @final_norm : tensor<72xf32>
  kiln.weight_decl @head.clusters : tensor<16x72xf32>
  kiln.weight_decl @head.rows : !kiln.weight<[256, 72], q8_2f>
  kiln.step {
  ^bb0(%token: index, %position: index, %top_p: f32):
    %w1 = kiln.weight @embed : !kiln.weight<[256, 72], f16>
    %h2 = kiln.embed %w1[%token] : !kiln.weight<[256, 72], f16> -> tensor<72xf32>
    // layer 0: gdn
    %w3 = kiln.weight @layers.0.in_norm : tensor<72xf32>
    %x4 = kiln.rms_norm %h2, %w3 {eps = 1.0e-06 : f32, zero_centered} : tensor<72xf32>
    %w5 = kiln.weight @layers.0.gdn.qkv : !kiln.weight<[68, 72], q8_2f>
    %y6 = kiln.matvec %w5, %x4 : !kiln.weight<[68, 72], q8_2f>, tensor<72xf32> -> tensor<68xf32>
    %s7 = kiln.state @layers.0.gdn.conv_ring : !kiln.conv_ring<channels = 68, taps = 4>
    %w8 = kiln.weight @layers.0.gdn.conv : tensor<68x4xf32>
    %c9 = kiln.conv_ring_step %s7, %y6, %w8 : !kiln.conv_ring<channels = 68, taps = 4>, tensor<68xf32>, tensor<68x4xf32> -> tensor<68xf32>
    %cq10 = kiln.silu %c9 : tensor<68xf32>
    %w11 = kiln.weight @layers.0.gdn.z : !kiln.weight<[36, 72], q8_2f>
    %y12 = kiln.matvec %w11, %x4 : !kiln.weight<[36, 72], q8_2f>, tensor<72xf32> -> tensor<36xf32>
    %w13 = kiln.weight @layers.0.gdn.a : !kiln.weight<[3, 72], q8_2f>
    %y14 = kiln.matvec %w13, %x4 : !kiln.weight<[3, 72], q8_2f>, tensor<72xf32> -> tensor<3xf32>
    %w15 = kiln.weight @layers.0.gdn.b : !kiln.weight<[3, 72], q8_2f>
    %y16 = kiln.matvec %w15, %x4 : !kiln.weight<[3, 72], q8_2f>, tensor<72xf32> -> tensor<3xf32>
    %w17 = kiln.weight @layers.0.gdn.A_log : tensor<3xf32>
    %w18 = kiln.weight @layers.0.gdn.dt_bias : tensor<3xf32>
    %g19, %beta20 = kiln.gdn_gates %y14, %y16, %w17, %w18 : tensor<3xf32>
    %s21 = kiln.state @layers.0.gdn.state : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>
    %o22 = kiln.gdn_step %s21, %cq10, %g19, %beta20 {num_k_heads = 1 : i64} : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, tensor<68xf32>, tensor<3xf32> -> tensor<36xf32>
    %w23 = kiln.weight @layers.0.gdn.norm : tensor<12xf32>
    %o24 = kiln.gated_rms_norm %o22, %y12, %w23 {eps = 1.0e-06 : f32, heads = 3 : i64} : tensor<36xf32>, tensor<12xf32>
    %w25 = kiln.weight @layers.0.gdn.out : !kiln.weight<[72, 36], q8_2f>
    %y26 = kiln.matvec %w25, %o24 : !kiln.weight<[72, 36], q8_2f>, tensor<36xf32> -> tensor<72xf32>
    %h27 = kiln.add %h2, %y26 : tensor<72xf32>
    %w28 = kiln.weight @layers.0.post_norm : tensor<72xf32>
    %x29 = kiln.rms_norm %h27, %w28 {eps = 1.0e-06 : f32, zero_centered} : tensor<72xf32>
    %w30 = kiln.weight @layers.0.ffn.gate : !kiln.weight<[96, 72], q8_2f>
    %y31 = kiln.matvec %w30, %x29 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %w32 = kiln.weight @layers.0.ffn.up : !kiln.weight<[96, 72], q8_2f>
    %y33 = kiln.matvec %w32, %x29 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %f34 = kiln.swiglu %y31, %y33 : tensor<96xf32>
    %w35 = kiln.weight @layers.0.ffn.down : !kiln.weight<[72, 96], q8_2f>
    %y36 = kiln.matvec %w35, %f34 : !kiln.weight<[72, 96], q8_2f>, tensor<96xf32> -> tensor<72xf32>
    %h37 = kiln.add %h27, %y36 : tensor<72xf32>
    // layer 1: anchor + MoE
    %w38 = kiln.weight @layers.1.in_norm : tensor<72xf32>
    %x39 = kiln.rms_norm %h37, %w38 {eps = 1.0e-06 : f32, zero_centered} : tensor<72xf32>
    %w40 = kiln.weight @layers.1.attn.q : !kiln.weight<[96, 72], q8_2f>
    %y41 = kiln.matvec %w40, %x39 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %w42 = kiln.weight @layers.1.attn.k : !kiln.weight<[32, 72], q8_2f>
    %y43 = kiln.matvec %w42, %x39 : !kiln.weight<[32, 72], q8_2f>, tensor<72xf32> -> tensor<32xf32>
    %w44 = kiln.weight @layers.1.attn.v : !kiln.weight<[32, 72], q8_2f>
    %y45 = kiln.matvec %w44, %x39 : !kiln.weight<[32, 72], q8_2f>, tensor<72xf32> -> tensor<32xf32>
    %qr46 = kiln.rotary %y41, %position {head_dim = 16 : i64, heads = 6 : i64, rotary_dim = 8 : i64, theta = 1.000000e+04 : f32} : tensor<96xf32>
    %kr47 = kiln.rotary %y43, %position {head_dim = 16 : i64, heads = 2 : i64, rotary_dim = 8 : i64, theta = 1.000000e+04 : f32} : tensor<32xf32>
    %s48 = kiln.state @layers.1.attn.kv : !kiln.kv_ring<kv_heads = 2, capacity = 16, head_dim = 16>
    kiln.kv_ring_write %s48, %kr47, %y45, %position : !kiln.kv_ring<kv_heads = 2, capacity = 16, head_dim = 16>, tensor<32xf32>
    %w49 = kiln.weight @layers.1.attn.sink_k : tensor<2x2x16xf32>
    %w50 = kiln.weight @layers.1.attn.sink_v : tensor<2x2x16xf32>
    %o51 = kiln.ring_attention %s48, %qr46, %y41, %position sinks(%w49, %w50 : tensor<2x2x16xf32>, tensor<2x2x16xf32>) {group_windows = array<i64: 16, 6>, num_q_heads = 6 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 16, head_dim = 16>, tensor<96xf32>
    %w52 = kiln.weight @layers.1.attn.o : !kiln.weight<[72, 96], q8_2f>
    %y53 = kiln.matvec %w52, %o51 : !kiln.weight<[72, 96], q8_2f>, tensor<96xf32> -> tensor<72xf32>
    %h54 = kiln.add %h37, %y53 : tensor<72xf32>
    %w55 = kiln.weight @layers.1.post_norm : tensor<72xf32>
    %x56 = kiln.rms_norm %h54, %w55 {eps = 1.0e-06 : f32, zero_centered} : tensor<72xf32>
    %w57 = kiln.weight @layers.1.ffn.gate : !kiln.weight<[96, 72], q8_2f>
    %y58 = kiln.matvec %w57, %x56 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %w59 = kiln.weight @layers.1.ffn.up : !kiln.weight<[96, 72], q8_2f>
    %y60 = kiln.matvec %w59, %x56 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %f61 = kiln.swiglu %y58, %y60 : tensor<96xf32>
    %w62 = kiln.weight @layers.1.ffn.down : !kiln.weight<[72, 96], q8_2f>
    %y63 = kiln.matvec %w62, %f61 : !kiln.weight<[72, 96], q8_2f>, tensor<96xf32> -> tensor<72xf32>
    %w64 = kiln.weight @layers.1.moe.centres : tensor<4x72xf32>
    %w65 = kiln.weight @layers.1.moe.basis : tensor<4x2x72xf32>
    %w66 = kiln.weight @layers.1.moe.bias : tensor<4xf32>
    %w67 = kiln.weight @layers.1.moe.shells : tensor<4xf32>
    %e68 = kiln.resonance_route %x56, %w64, %w66 basis(%w65 : tensor<4x2x72xf32>) shells(%w67 : tensor<4xf32>) : tensor<72xf32>, tensor<4x72xf32>, tensor<4xf32>
    %w69 = kiln.weight @layers.1.moe.experts.0.gate : !kiln.weight<[96, 72], q8_2f>
    %w70 = kiln.weight @layers.1.moe.experts.1.gate : !kiln.weight<[96, 72], q8_2f>
    %w71 = kiln.weight @layers.1.moe.experts.2.gate : !kiln.weight<[96, 72], q8_2f>
    %w72 = kiln.weight @layers.1.moe.experts.3.gate : !kiln.weight<[96, 72], q8_2f>
    %we73 = kiln.expert_select %e68 [%w69, %w70, %w71, %w72] : !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f> -> !kiln.weight<[96, 72], q8_2f>
    %w74 = kiln.weight @layers.1.moe.experts.0.up : !kiln.weight<[96, 72], q8_2f>
    %w75 = kiln.weight @layers.1.moe.experts.1.up : !kiln.weight<[96, 72], q8_2f>
    %w76 = kiln.weight @layers.1.moe.experts.2.up : !kiln.weight<[96, 72], q8_2f>
    %w77 = kiln.weight @layers.1.moe.experts.3.up : !kiln.weight<[96, 72], q8_2f>
    %we78 = kiln.expert_select %e68 [%w74, %w75, %w76, %w77] : !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f> -> !kiln.weight<[96, 72], q8_2f>
    %w79 = kiln.weight @layers.1.moe.experts.0.down : !kiln.weight<[72, 96], q8_2f>
    %w80 = kiln.weight @layers.1.moe.experts.1.down : !kiln.weight<[72, 96], q8_2f>
    %w81 = kiln.weight @layers.1.moe.experts.2.down : !kiln.weight<[72, 96], q8_2f>
    %w82 = kiln.weight @layers.1.moe.experts.3.down : !kiln.weight<[72, 96], q8_2f>
    %we83 = kiln.expert_select %e68 [%w79, %w80, %w81, %w82] : !kiln.weight<[72, 96], q8_2f>, !kiln.weight<[72, 96], q8_2f>, !kiln.weight<[72, 96], q8_2f>, !kiln.weight<[72, 96], q8_2f> -> !kiln.weight<[72, 96], q8_2f>
    %y84 = kiln.matvec %we73, %x56 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %y85 = kiln.matvec %we78, %x56 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %f86 = kiln.swiglu %y84, %y85 : tensor<96xf32>
    %y87 = kiln.matvec %we83, %f86 : !kiln.weight<[72, 96], q8_2f>, tensor<96xf32> -> tensor<72xf32>
    %y88 = kiln.add %y63, %y87 : tensor<72xf32>
    %h89 = kiln.add %h54, %y88 : tensor<72xf32>
    // layer 2: gdn + MoE
    %w90 = kiln.weight @layers.2.in_norm : tensor<72xf32>
    %x91 = kiln.rms_norm %h89, %w90 {eps = 1.0e-06 : f32, zero_centered} : tensor<72xf32>
    %w92 = kiln.weight @layers.2.gdn.qkv : !kiln.weight<[68, 72], q8_2f>
    %y93 = kiln.matvec %w92, %x91 : !kiln.weight<[68, 72], q8_2f>, tensor<72xf32> -> tensor<68xf32>
    %s94 = kiln.state @layers.2.gdn.conv_ring : !kiln.conv_ring<channels = 68, taps = 4>
    %w95 = kiln.weight @layers.2.gdn.conv : tensor<68x4xf32>
    %c96 = kiln.conv_ring_step %s94, %y93, %w95 : !kiln.conv_ring<channels = 68, taps = 4>, tensor<68xf32>, tensor<68x4xf32> -> tensor<68xf32>
    %cq97 = kiln.silu %c96 : tensor<68xf32>
    %w98 = kiln.weight @layers.2.gdn.z : !kiln.weight<[36, 72], q8_2f>
    %y99 = kiln.matvec %w98, %x91 : !kiln.weight<[36, 72], q8_2f>, tensor<72xf32> -> tensor<36xf32>
    %w100 = kiln.weight @layers.2.gdn.a : !kiln.weight<[3, 72], q8_2f>
    %y101 = kiln.matvec %w100, %x91 : !kiln.weight<[3, 72], q8_2f>, tensor<72xf32> -> tensor<3xf32>
    %w102 = kiln.weight @layers.2.gdn.b : !kiln.weight<[3, 72], q8_2f>
    %y103 = kiln.matvec %w102, %x91 : !kiln.weight<[3, 72], q8_2f>, tensor<72xf32> -> tensor<3xf32>
    %w104 = kiln.weight @layers.2.gdn.A_log : tensor<3xf32>
    %w105 = kiln.weight @layers.2.gdn.dt_bias : tensor<3xf32>
    %g106, %beta107 = kiln.gdn_gates %y101, %y103, %w104, %w105 : tensor<3xf32>
    %s108 = kiln.state @layers.2.gdn.state : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>
    %o109 = kiln.gdn_step %s108, %cq97, %g106, %beta107 {num_k_heads = 1 : i64} : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, tensor<68xf32>, tensor<3xf32> -> tensor<36xf32>
    %w110 = kiln.weight @layers.2.gdn.norm : tensor<12xf32>
    %o111 = kiln.gated_rms_norm %o109, %y99, %w110 {eps = 1.0e-06 : f32, heads = 3 : i64} : tensor<36xf32>, tensor<12xf32>
    %w112 = kiln.weight @layers.2.gdn.out : !kiln.weight<[72, 36], q8_2f>
    %y113 = kiln.matvec %w112, %o111 : !kiln.weight<[72, 36], q8_2f>, tensor<36xf32> -> tensor<72xf32>
    %h114 = kiln.add %h89, %y113 : tensor<72xf32>
    %w115 = kiln.weight @layers.2.post_norm : tensor<72xf32>
    %x116 = kiln.rms_norm %h114, %w115 {eps = 1.0e-06 : f32, zero_centered} : tensor<72xf32>
    %w117 = kiln.weight @layers.2.ffn.gate : !kiln.weight<[96, 72], q8_2f>
    %y118 = kiln.matvec %w117, %x116 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %w119 = kiln.weight @layers.2.ffn.up : !kiln.weight<[96, 72], q8_2f>
    %y120 = kiln.matvec %w119, %x116 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %f121 = kiln.swiglu %y118, %y120 : tensor<96xf32>
    %w122 = kiln.weight @layers.2.ffn.down : !kiln.weight<[72, 96], q8_2f>
    %y123 = kiln.matvec %w122, %f121 : !kiln.weight<[72, 96], q8_2f>, tensor<96xf32> -> tensor<72xf32>
    %w124 = kiln.weight @layers.2.moe.centres : tensor<4x72xf32>
    %w125 = kiln.weight @layers.2.moe.basis : tensor<4x2x72xf32>
    %w126 = kiln.weight @layers.2.moe.bias : tensor<4xf32>
    %w127 = kiln.weight @layers.2.moe.shells : tensor<4xf32>
    %e128 = kiln.resonance_route %x116, %w124, %w126 basis(%w125 : tensor<4x2x72xf32>) shells(%w127 : tensor<4xf32>) : tensor<72xf32>, tensor<4x72xf32>, tensor<4xf32>
    %w129 = kiln.weight @layers.2.moe.experts.0.gate : !kiln.weight<[96, 72], q8_2f>
    %w130 = kiln.weight @layers.2.moe.experts.1.gate : !kiln.weight<[96, 72], q8_2f>
    %w131 = kiln.weight @layers.2.moe.experts.2.gate : !kiln.weight<[96, 72], q8_2f>
    %w132 = kiln.weight @layers.2.moe.experts.3.gate : !kiln.weight<[96, 72], q8_2f>
    %we133 = kiln.expert_select %e128 [%w129, %w130, %w131, %w132] : !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f> -> !kiln.weight<[96, 72], q8_2f>
    %w134 = kiln.weight @layers.2.moe.experts.0.up : !kiln.weight<[96, 72], q8_2f>
    %w135 = kiln.weight @layers.2.moe.experts.1.up : !kiln.weight<[96, 72], q8_2f>
    %w136 = kiln.weight @layers.2.moe.experts.2.up : !kiln.weight<[96, 72], q8_2f>
    %w137 = kiln.weight @layers.2.moe.experts.3.up : !kiln.weight<[96, 72], q8_2f>
    %we138 = kiln.expert_select %e128 [%w134, %w135, %w136, %w137] : !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f> -> !kiln.weight<[96, 72], q8_2f>
    %w139 = kiln.weight @layers.2.moe.experts.0.down : !kiln.weight<[72, 96], q8_2f>
    %w140 = kiln.weight @layers.2.moe.experts.1.down : !kiln.weight<[72, 96], q8_2f>
    %w141 = kiln.weight @layers.2.moe.experts.2.down : !kiln.weight<[72, 96], q8_2f>
    %w142 = kiln.weight @layers.2.moe.experts.3.down : !kiln.weight<[72, 96], q8_2f>
    %we143 = kiln.expert_select %e128 [%w139, %w140, %w141, %w142] : !kiln.weight<[72, 96], q8_2f>, !kiln.weight<[72, 96], q8_2f>, !kiln.weight<[72, 96], q8_2f>, !kiln.weight<[72, 96], q8_2f> -> !kiln.weight<[72, 96], q8_2f>
    %y144 = kiln.matvec %we133, %x116 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %y145 = kiln.matvec %we138, %x116 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %f146 = kiln.swiglu %y144, %y145 : tensor<96xf32>
    %y147 = kiln.matvec %we143, %f146 : !kiln.weight<[72, 96], q8_2f>, tensor<96xf32> -> tensor<72xf32>
    %y148 = kiln.add %y123, %y147 : tensor<72xf32>
    %h149 = kiln.add %h114, %y148 : tensor<72xf32>
    // layer 3: anchor
    %w150 = kiln.weight @layers.3.in_norm : tensor<72xf32>
    %x151 = kiln.rms_norm %h149, %w150 {eps = 1.0e-06 : f32, zero_centered} : tensor<72xf32>
    %w152 = kiln.weight @layers.3.attn.q : !kiln.weight<[96, 72], q8_2f>
    %y153 = kiln.matvec %w152, %x151 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %w154 = kiln.weight @layers.3.attn.k : !kiln.weight<[32, 72], q8_2f>
    %y155 = kiln.matvec %w154, %x151 : !kiln.weight<[32, 72], q8_2f>, tensor<72xf32> -> tensor<32xf32>
    %w156 = kiln.weight @layers.3.attn.v : !kiln.weight<[32, 72], q8_2f>
    %y157 = kiln.matvec %w156, %x151 : !kiln.weight<[32, 72], q8_2f>, tensor<72xf32> -> tensor<32xf32>
    %qr158 = kiln.rotary %y153, %position {head_dim = 16 : i64, heads = 6 : i64, rotary_dim = 8 : i64, theta = 1.000000e+04 : f32} : tensor<96xf32>
    %kr159 = kiln.rotary %y155, %position {head_dim = 16 : i64, heads = 2 : i64, rotary_dim = 8 : i64, theta = 1.000000e+04 : f32} : tensor<32xf32>
    %s160 = kiln.state @layers.3.attn.kv : !kiln.kv_ring<kv_heads = 2, capacity = 16, head_dim = 16>
    kiln.kv_ring_write %s160, %kr159, %y157, %position : !kiln.kv_ring<kv_heads = 2, capacity = 16, head_dim = 16>, tensor<32xf32>
    %w161 = kiln.weight @layers.3.attn.sink_k : tensor<2x2x16xf32>
    %w162 = kiln.weight @layers.3.attn.sink_v : tensor<2x2x16xf32>
    %o163 = kiln.ring_attention %s160, %qr158, %y153, %position sinks(%w161, %w162 : tensor<2x2x16xf32>, tensor<2x2x16xf32>) {group_windows = array<i64: 16, 6>, num_q_heads = 6 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 16, head_dim = 16>, tensor<96xf32>
    %w164 = kiln.weight @layers.3.attn.o : !kiln.weight<[72, 96], q8_2f>
    %y165 = kiln.matvec %w164, %o163 : !kiln.weight<[72, 96], q8_2f>, tensor<96xf32> -> tensor<72xf32>
    %h166 = kiln.add %h149, %y165 : tensor<72xf32>
    %w167 = kiln.weight @layers.3.post_norm : tensor<72xf32>
    %x168 = kiln.rms_norm %h166, %w167 {eps = 1.0e-06 : f32, zero_centered} : tensor<72xf32>
    %w169 = kiln.weight @layers.3.ffn.gate : !kiln.weight<[96, 72], q8_2f>
    %y170 = kiln.matvec %w169, %x168 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %w171 = kiln.weight @layers.3.ffn.up : !kiln.weight<[96, 72], q8_2f>
    %y172 = kiln.matvec %w171, %x168 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
    %f173 = kiln.swiglu %y170, %y172 : tensor<96xf32>
    %w174 = kiln.weight @layers.3.ffn.down : !kiln.weight<[72, 96], q8_2f>
    %y175 = kiln.matvec %w174, %f173 : !kiln.weight<[72, 96], q8_2f>, tensor<96xf32> -> tensor<72xf32>
    %h176 = kiln.add %h166, %y175 : tensor<72xf32>
    // hierarchical head
    %w177 = kiln.weight @final_norm : tensor<72xf32>
    %x178 = kiln.rms_norm %h176, %w177 {eps = 1.0e-06 : f32, zero_centered} : tensor<72xf32>
    %w179 = kiln.weight @head.clusters : tensor<16x72xf32>
    %y180 = kiln.matvec %w179, %x178 : tensor<16x72xf32>, tensor<72xf32> -> tensor<16xf32>
    %lc181 = kiln.log_softmax %y180 : tensor<16xf32>
    %gate182 = kiln.top_p_gate %lc181, %top_p : tensor<16xf32>
    %w183 = kiln.weight @head.rows : !kiln.weight<[256, 72], q8_2f>
    %logp184 = kiln.clustered_head %w183, %x178, %lc181, %gate182 {cluster_size = 16 : i64, num_clusters = 16 : i64} : !kiln.weight<[256, 72], q8_2f>, tensor<72xf32>, tensor<16xf32> -> tensor<256xf32>
    kiln.return %logp184 : tensor<256xf32>
  }
}
