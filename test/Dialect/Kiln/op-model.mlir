// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.model, weight_decl, state_decl, step, return, weight, state: print, re-parse, print again, check exact text.

// CHECK-LABEL: kiln.model @tiny embryo
// CHECK: kiln.weight_decl @embed : !kiln.weight<[6, 12], f16>
// CHECK-NEXT: kiln.weight_decl @final_norm : tensor<12xf32>
// CHECK-NEXT: kiln.weight_decl @head.clusters : tensor<3x12xf32>
// CHECK-NEXT: kiln.weight_decl @head.rows : !kiln.weight<[6, 12], q8_2f>
// CHECK-NEXT: kiln.state_decl @layers.0.attn.kv : !kiln.kv_ring<kv_heads = 1, capacity = 5, head_dim = 12>
// CHECK-NEXT: kiln.step {
// CHECK-NEXT: ^bb0(%token: index, %position: index, %top_p: f32):
// CHECK-NEXT: [[V0:%[0-9]+]] = kiln.weight @embed : !kiln.weight<[6, 12], f16>
// CHECK-NEXT: [[V1:%[0-9]+]] = kiln.embed [[V0]][%token] : !kiln.weight<[6, 12], f16> -> tensor<12xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = kiln.state @layers.0.attn.kv : !kiln.kv_ring<kv_heads = 1, capacity = 5, head_dim = 12>
// CHECK-NEXT: kiln.kv_ring_write [[V2]], [[V1]], [[V1]], %position : !kiln.kv_ring<kv_heads = 1, capacity = 5, head_dim = 12>, tensor<12xf32>
// CHECK-NEXT: [[V3:%[0-9]+]] = kiln.weight @final_norm : tensor<12xf32>
// CHECK-NEXT: [[V4:%[0-9]+]] = kiln.rms_norm [[V1]], [[V3]] {eps = 9.99999997E-7 : f32, zero_centered} : tensor<12xf32>
// CHECK-NEXT: [[V5:%[0-9]+]] = kiln.weight @head.clusters : tensor<3x12xf32>
// CHECK-NEXT: [[V6:%[0-9]+]] = kiln.matvec [[V5]], [[V4]] : tensor<3x12xf32>, tensor<12xf32> -> tensor<3xf32>
// CHECK-NEXT: [[V7:%[0-9]+]] = kiln.log_softmax [[V6]] : tensor<3xf32>
// CHECK-NEXT: [[V8:%[0-9]+]] = kiln.top_p_gate [[V7]], %top_p : tensor<3xf32>
// CHECK-NEXT: [[V9:%[0-9]+]] = kiln.weight @head.rows : !kiln.weight<[6, 12], q8_2f>
// CHECK-NEXT: [[V10:%[0-9]+]] = kiln.clustered_head [[V9]], [[V4]], [[V7]], [[V8]] {cluster_size = 2 : i64, num_clusters = 3 : i64} : !kiln.weight<[6, 12], q8_2f>, tensor<12xf32>, tensor<3xf32> -> tensor<6xf32>
// CHECK-NEXT: kiln.return [[V10]] : tensor<6xf32>
kiln.model @tiny embryo attributes {eps = 1.0e-06 : f32, hidden = 12 : i64, intermediate = 5 : i64, vocab = 6 : i64, zero_centered_norm} {
  kiln.weight_decl @embed : !kiln.weight<[6, 12], f16>
  kiln.weight_decl @final_norm : tensor<12xf32>
  kiln.weight_decl @head.clusters : tensor<3x12xf32>
  kiln.weight_decl @head.rows : !kiln.weight<[6, 12], q8_2f>
  kiln.state_decl @layers.0.attn.kv : !kiln.kv_ring<kv_heads = 1, capacity = 5, head_dim = 12>
  kiln.step {
  ^bb0(%token: index, %position: index, %top_p: f32):
    %e = kiln.weight @embed : !kiln.weight<[6, 12], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[6, 12], f16> -> tensor<12xf32>
    %kv = kiln.state @layers.0.attn.kv : !kiln.kv_ring<kv_heads = 1, capacity = 5, head_dim = 12>
    kiln.kv_ring_write %kv, %h, %h, %position : !kiln.kv_ring<kv_heads = 1, capacity = 5, head_dim = 12>, tensor<12xf32>
    %fw = kiln.weight @final_norm : tensor<12xf32>
    %x = kiln.rms_norm %h, %fw {eps = 1.0e-06 : f32, zero_centered} : tensor<12xf32>
    %cw = kiln.weight @head.clusters : tensor<3x12xf32>
    %c = kiln.matvec %cw, %x : tensor<3x12xf32>, tensor<12xf32> -> tensor<3xf32>
    %lc = kiln.log_softmax %c : tensor<3xf32>
    %g = kiln.top_p_gate %lc, %top_p : tensor<3xf32>
    %rw = kiln.weight @head.rows : !kiln.weight<[6, 12], q8_2f>
    %lp = kiln.clustered_head %rw, %x, %lc, %g {cluster_size = 2 : i64, num_clusters = 3 : i64} : !kiln.weight<[6, 12], q8_2f>, tensor<12xf32>, tensor<3xf32> -> tensor<6xf32>
    kiln.return %lp : tensor<6xf32>
  }
}

// -----

// CHECK-LABEL: kiln.model @two_arg_step dory
// CHECK: kiln.weight_decl @embed : !kiln.weight<[2, 4], f16>
// CHECK-NEXT: kiln.weight_decl @head : !kiln.weight<[2, 4], f16>
// CHECK-NEXT: kiln.step {
// CHECK-NEXT: ^bb0(%token: index, %position: index):
// CHECK-NEXT: [[V0:%[0-9]+]] = kiln.weight @embed : !kiln.weight<[2, 4], f16>
// CHECK-NEXT: [[V1:%[0-9]+]] = kiln.embed [[V0]][%token] : !kiln.weight<[2, 4], f16> -> tensor<4xf32>
// CHECK-NEXT: [[V2:%[0-9]+]] = kiln.weight @head : !kiln.weight<[2, 4], f16>
// CHECK-NEXT: [[V3:%[0-9]+]] = kiln.matvec [[V2]], [[V1]] : !kiln.weight<[2, 4], f16>, tensor<4xf32> -> tensor<2xf32>
// CHECK-NEXT: [[V4:%[0-9]+]] = kiln.log_softmax [[V3]] : tensor<2xf32>
// CHECK-NEXT: kiln.return [[V4]] : tensor<2xf32>
kiln.model @two_arg_step dory attributes {eps = 1.0e-06 : f32, hidden = 4 : i64, intermediate = 1 : i64, vocab = 2 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[2, 4], f16>
  kiln.weight_decl @head : !kiln.weight<[2, 4], f16>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[2, 4], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[2, 4], f16> -> tensor<4xf32>
    %w = kiln.weight @head : !kiln.weight<[2, 4], f16>
    %l = kiln.matvec %w, %h : !kiln.weight<[2, 4], f16>, tensor<4xf32> -> tensor<2xf32>
    %lp = kiln.log_softmax %l : tensor<2xf32>
    kiln.return %lp : tensor<2xf32>
  }
}
