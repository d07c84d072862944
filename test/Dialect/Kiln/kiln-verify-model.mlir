// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics --kiln-verify-model | FileCheck %s

// --kiln-verify-model: a valid model passes unchanged; each cross-op rule has a case.

// CHECK-LABEL: kiln.model @m embryo
// CHECK: kiln.weight_decl @layers.3.moe.experts.2.down : !kiln.weight<[8, 4], q8_2f>
// CHECK: kiln.return
kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head.rows : !kiln.weight<[4, 8], q8_2f>
  kiln.weight_decl @final_norm : tensor<8xf32>
  kiln.weight_decl @layers.3.moe.experts.2.down : !kiln.weight<[8, 4], q8_2f>
  kiln.state_decl @layers.0.attn.kv : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 8>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %fw = kiln.weight @final_norm : tensor<8xf32>
    %d = kiln.weight @layers.3.moe.experts.2.down : !kiln.weight<[8, 4], q8_2f>
    %kv = kiln.state @layers.0.attn.kv : !kiln.kv_ring<kv_heads = 1, capacity = 2, head_dim = 8>
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[4, 8], q8_2f>
    %l = kiln.matvec %r, %h : !kiln.weight<[4, 8], q8_2f>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head.rows : !kiln.weight<[4, 8], q8_2f>
  // expected-error @+1 {{weight @layers.0.attn.s_qk is not a embryo weight name of docs/weights.md}}
  kiln.weight_decl @layers.0.attn.s_qk : tensor<2x4xf32>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %u_layers_0_attn_s_qk = kiln.weight @layers.0.attn.s_qk : tensor<2x4xf32>
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[4, 8], q8_2f>
    %l = kiln.matvec %r, %h : !kiln.weight<[4, 8], q8_2f>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head.rows : !kiln.weight<[4, 8], q8_2f>
  // expected-error @+1 {{weight @final_norm is stored as F32: it must be a tensor}}
  kiln.weight_decl @final_norm : !kiln.weight<[8, 1], f16>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %u_final_norm = kiln.weight @final_norm : !kiln.weight<[8, 1], f16>
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[4, 8], q8_2f>
    %l = kiln.matvec %r, %h : !kiln.weight<[4, 8], q8_2f>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head.rows : !kiln.weight<[4, 8], q8_2f>
  // expected-error @+1 {{weight @layers.0.ffn.up is a matrix: it must be a !kiln.weight}}
  kiln.weight_decl @layers.0.ffn.up : tensor<4x8xf32>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %u_layers_0_ffn_up = kiln.weight @layers.0.ffn.up : tensor<4x8xf32>
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[4, 8], q8_2f>
    %l = kiln.matvec %r, %h : !kiln.weight<[4, 8], q8_2f>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head.rows : !kiln.weight<[4, 8], q8_2f>
  // expected-error @+1 {{weight @layers.1.ffn.gate has shape [8, 8], expected [4, 8] (layers.{i}.ffn.gate is [I, H])}}
  kiln.weight_decl @layers.1.ffn.gate : !kiln.weight<[8, 8], q8_2f>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %u_layers_1_ffn_gate = kiln.weight @layers.1.ffn.gate : !kiln.weight<[8, 8], q8_2f>
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[4, 8], q8_2f>
    %l = kiln.matvec %r, %h : !kiln.weight<[4, 8], q8_2f>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head.rows : !kiln.weight<[4, 8], q8_2f>
  // expected-error @+1 {{weight @layers.0.gdn.out has shape [6, 12], expected [8, *] (layers.{i}.gdn.out is [H, nv*dv])}}
  kiln.weight_decl @layers.0.gdn.out : !kiln.weight<[6, 12], q8_2f>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %u_layers_0_gdn_out = kiln.weight @layers.0.gdn.out : !kiln.weight<[6, 12], q8_2f>
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[4, 8], q8_2f>
    %l = kiln.matvec %r, %h : !kiln.weight<[4, 8], q8_2f>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64, zero_centered_norm} {
  // expected-error @+1 {{weight @embed must be an f16 !kiln.weight}}
  kiln.weight_decl @embed : tensor<4x8xf32>
  kiln.weight_decl @head.rows : !kiln.weight<[4, 8], q8_2f>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : tensor<4x8xf32>
    %h = kiln.embed %e[%token] : tensor<4x8xf32> -> tensor<8xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[4, 8], q8_2f>
    %l = kiln.matvec %r, %h : !kiln.weight<[4, 8], q8_2f>, tensor<8xf32> -> tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64, zero_centered_norm} {
  // expected-error @+1 {{weight @embed has shape [4, 6], expected [4, 8] (embed is [V, H])}}
  kiln.weight_decl @embed : !kiln.weight<[4, 6], f16>
  kiln.weight_decl @head.rows : !kiln.weight<[4, 8], q8_2f>
  kiln.weight_decl @final_norm : tensor<8xf32>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 6], f16>
    // expected-error @+1 {{yields 6 values, but the model's hidden is 8}}
    %h1 = kiln.embed %e[%token] : !kiln.weight<[4, 6], f16> -> tensor<6xf32>
    %fw = kiln.weight @final_norm : tensor<8xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[4, 8], q8_2f>
    %l = kiln.matvec %r, %fw : !kiln.weight<[4, 8], q8_2f>, tensor<8xf32> -> tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head.rows : !kiln.weight<[4, 8], q8_2f>
  // expected-error @+1 {{@final_norm is declared but no op in the step uses it}}
  kiln.weight_decl @final_norm : tensor<8xf32>
  // expected-error @+1 {{@layers.0.gdn.state is declared but no op in the step uses it}}
  kiln.state_decl @layers.0.gdn.state : !kiln.gdn_state<v_heads = 1, k_dim = 4, v_dim = 4>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[4, 8], q8_2f>
    %l = kiln.matvec %r, %h : !kiln.weight<[4, 8], q8_2f>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head.rows : !kiln.weight<[4, 8], q8_2f>
  kiln.weight_decl @final_norm : tensor<8xf32>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %fw = kiln.weight @final_norm : tensor<8xf32>
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    // expected-error @+1 {{zero_centered must match the model's zero_centered_norm (set)}}
    %x = kiln.rms_norm %h, %fw {eps = 1.0e-06 : f32} : tensor<8xf32>
    // expected-error @+1 {{eps (1.000000e-05) differs from the model's eps (1.000000e-06)}}
    %x2 = kiln.rms_norm %x, %fw {eps = 1.0e-05 : f32, zero_centered} : tensor<8xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[4, 8], q8_2f>
    %l = kiln.matvec %r, %x2 : !kiln.weight<[4, 8], q8_2f>, tensor<8xf32> -> tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head.rows : !kiln.weight<[4, 8], q8_2f>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    // expected-error @+1 {{is not part of the embryo family}}
    %s = kiln.slerp_residual %h, %h, %h {eps = 1.0e-06 : f32} : tensor<8xf32>
    %r = kiln.weight @head.rows : !kiln.weight<[4, 8], q8_2f>
    %l = kiln.matvec %r, %s : !kiln.weight<[4, 8], q8_2f>, tensor<8xf32> -> tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

kiln.model @m dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  // expected-error @+1 {{weight @final_norm is not a dory weight name of docs/weights.md}}
  kiln.weight_decl @final_norm : tensor<8xf32>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %fw = kiln.weight @final_norm : tensor<8xf32>
    // expected-error @+1 {{is not part of the dory family}}
    %x = kiln.rms_norm %h, %fw {eps = 1.0e-06 : f32} : tensor<8xf32>
    %r = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %r, %x : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}
