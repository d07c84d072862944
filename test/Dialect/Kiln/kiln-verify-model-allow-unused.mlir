// REQUIRES: compiler
// RUN: kiln-opt %s --kiln-verify-model=allow-unused=true | FileCheck %s --check-prefix=ALLOW
// RUN: not kiln-opt %s --kiln-verify-model 2>&1 | FileCheck %s --check-prefix=STRICT

// --kiln-verify-model's allow-unused option: unused declarations pass with it and fail without.

// ALLOW: kiln.weight_decl @final_norm : tensor<8xf32>
// ALLOW: kiln.state_decl @layers.0.gdn.state
// STRICT: error: 'kiln.weight_decl' op @final_norm is declared but no op in the step uses it
// STRICT: error: 'kiln.state_decl' op @layers.0.gdn.state is declared but no op in the step uses it
kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head.rows : !kiln.weight<[4, 8], q8_2f>
  kiln.weight_decl @final_norm : tensor<8xf32>
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
