// REQUIRES: compiler
// RUN: kiln-opt --convert-kiln-to-stage --split-input-file %s | FileCheck %s

// The head alone (f16): embed_gather, one rmsnorm output read by both the
// cluster logits and the head rows, log-probs written into the readback.
// Scratch planes whose live ranges do not overlap share a slot.

// CHECK-LABEL: module attributes {kiln.config = "", kiln.family = "embryo", kiln.max_position = 4096 : i64, kiln.vocab_size = 6 : i64, kiln.weight_format = "f16"}
// CHECK: func.func @decode(%[[P:[a-z0-9]+]]: memref<4xi32> {kiln.buffer = {byte_offset = 0 : i64, byte_size = 16 : i64, kind = "params", name = "params", slot = 0 : i64}},
// CHECK-SAME: %[[E:[a-z0-9]+]]: memref<6x2xvector<4xi32>> {kiln.buffer = {byte_offset = 0 : i64, byte_size = 192 : i64, kind = "weight", name = "embed", slot = 1 : i64, tensors = [{byte_offset = 0 : i64, dtype = "F16", layout = "F16RowMajor", name = "embed", row_pitch_bytes = 32 : i64, shape = [6, 12]}]}},
// CHECK-SAME: %[[H:[a-z0-9]+]]: memref<12xf32> {kiln.buffer = {{{.*}}kind = "scratch", name = "plane.embed", slot = [[SLOT:[0-9]+]] : i64}}
// CHECK-SAME: %[[LC:[a-z0-9]+]]: memref<2xf32> {kiln.buffer = {{{.*}}kind = "scratch", name = "plane.log_softmax", slot = [[SLOT]] : i64}}
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<6xf32> {kiln.buffer = {{{.*}}kind = "readback", name = "readback"
// CHECK-SAME: kiln.readback = {arg = 8 : i64, byte_offset = 0 : i64, count = 6 : i64, values = "LogProbs"}
// CHECK: stage.dispatch "embed" {
// CHECK-NEXT: stage.embed_gather table(%[[E]] : memref<6x2xvector<4xi32>>) params(%[[P]] : memref<4xi32>) out(%[[H]] : memref<12xf32>)
// CHECK: stage.dispatch "final_norm" {
// CHECK-NEXT: stage.rmsnorm residual(%[[H]] : memref<12xf32>) weight(%{{.*}} : memref<12xf32>) outs(%[[X:[a-z0-9]+]] : memref<12xf32>) {eps = 9.99999997E-7 : f32, zero_centered}
// CHECK: stage.dispatch "cluster_logits" {
// CHECK-NEXT: stage.cluster_logits input(%[[X]] : memref<12xf32>) clusters(%{{.*}} : memref<2x12xf32>) out(%[[LC]] : memref<2xf32>)
// CHECK: stage.dispatch "head_rows" {
// CHECK-NEXT: stage.head_rows input(%[[X]] : memref<12xf32>) rows(%{{.*}} : memref<6x2xvector<4xi32>>) cluster_logp(%[[LC]] : memref<2xf32>) params(%[[P]] : memref<4xi32>) out(%[[OUT]] : memref<6xf32>) {format = #stage.format<f16>}
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
// CHECK: %[[ROWS:[a-z0-9]+]]: memref<6x1xvector<4xi32>> {kiln.buffer = {{{.*}}kind = "weight", name = "head.rows", {{.*}}tensors = [{byte_offset = 0 : i64, dtype = "I8", layout = "I8RowMajor", name = "head.rows.q", row_pitch_bytes = 16 : i64, shape = [6, 12]}]}}
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
// CHECK: %[[H:[a-z0-9]+]]: memref<8xf32> {kiln.buffer = {{{.*}}kind = "scratch", name = "plane.embed"
// CHECK-SAME: %[[IN:[a-z0-9]+]]: memref<8xf32> {kiln.buffer = {{{.*}}kind = "state", name = "loop.in"
// CHECK-SAME: %[[ST:[a-z0-9]+]]: memref<8xf32> {kiln.buffer = {{{.*}}kind = "state", name = "loop.st"
// CHECK-SAME: %[[HS:[a-z0-9]+]]: memref<4xf32> {kiln.buffer = {byte_offset = 0 : i64, byte_size = 16 : i64, kind = "weight", name = "head_scale"
// CHECK-SAME: kiln.readback = {arg = [[RB:[0-9]+]] : i64, byte_offset = 0 : i64, count = 4 : i64, values = "Logits"}
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
