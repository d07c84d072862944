// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.gdn_step: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @gdn_step_three_v_heads_per_k_head
// CHECK: [[V0:%[0-9]+]] = kiln.gdn_step %arg0, %arg1, %arg2, %arg3 {num_k_heads = 1 : i64} : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, tensor<68xf32>, tensor<3xf32> -> tensor<36xf32>
// CHECK-NEXT: return [[V0]] : tensor<36xf32>
func.func @gdn_step_three_v_heads_per_k_head(%s: !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, %cq: tensor<68xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<36xf32> {
  %o = kiln.gdn_step %s, %cq, %g, %b {num_k_heads = 1 : i64} : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>, tensor<68xf32>, tensor<3xf32> -> tensor<36xf32>
  return %o : tensor<36xf32>
}

// -----

// CHECK-LABEL: func.func @gdn_step_qk_eps
// CHECK: [[V0:%[0-9]+]] = kiln.gdn_step %arg0, %arg1, %arg2, %arg3 {num_k_heads = 2 : i64, qk_eps = 9.99999974E-6 : f32} : !kiln.gdn_state<v_heads = 4, k_dim = 8, v_dim = 8>, tensor<64xf32>, tensor<4xf32> -> tensor<32xf32>
// CHECK-NEXT: return [[V0]] : tensor<32xf32>
func.func @gdn_step_qk_eps(%s: !kiln.gdn_state<v_heads = 4, k_dim = 8, v_dim = 8>, %cq: tensor<64xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<32xf32> {
  %o = kiln.gdn_step %s, %cq, %g, %b {num_k_heads = 2 : i64, qk_eps = 1.0e-05 : f32} : !kiln.gdn_state<v_heads = 4, k_dim = 8, v_dim = 8>, tensor<64xf32>, tensor<4xf32> -> tensor<32xf32>
  return %o : tensor<32xf32>
}
