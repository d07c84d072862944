// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file --kiln-expand-loop | FileCheck %s

// --kiln-expand-loop: kiln.loop becomes its passes joined by explicit kiln.mix edges.

// Two passes, no early exit: enter, pass 0, between, pass 1, leave.
// CHECK-LABEL: kiln.model @no_exit dory
// CHECK-NOT: kiln.loop %
// CHECK: [[LS:%[0-9]+]] = kiln.state @loop
// CHECK: [[H0:%[0-9]+]] = kiln.mix enter [[LS]], [[IN:%[0-9]+]] {eps = 9.99999997E-7 : f32}
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: [[A0:%[0-9]+]] = kiln.weight @layers.0.alpha_attn
// CHECK-NEXT: [[P0:%[0-9]+]] = kiln.slerp_residual [[H0]], [[H0]], [[A0]]
// CHECK-NEXT: [[H1:%[0-9]+]] = kiln.mix between [[LS]], [[P0]]
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: [[A1:%[0-9]+]] = kiln.weight @layers.0.alpha_attn
// CHECK-NEXT: [[P1:%[0-9]+]] = kiln.slerp_residual [[H1]], [[H1]], [[A1]]
// CHECK-NEXT: [[OUT:%[0-9]+]] = kiln.mix leave [[LS]], [[P1]]
// CHECK-NOT: kiln.mix
// CHECK: kiln.matvec {{%[0-9]+}}, [[OUT]]
kiln.model @no_exit dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @layers.0.alpha_attn : tensor<8xf32>
  kiln.state_decl @loop : !kiln.loop_state<hidden = 8>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %ls = kiln.state @loop : !kiln.loop_state<hidden = 8>
    %out = kiln.loop %h, %ls passes(2) : tensor<8xf32>, !kiln.loop_state<hidden = 8> body {
    ^bb0(%x: tensor<8xf32>, %pass: index):
      %a = kiln.weight @layers.0.alpha_attn : tensor<8xf32>
      %y = kiln.slerp_residual %x, %x, %a {eps = 1.0e-06 : f32} : tensor<8xf32>
      kiln.yield %y : tensor<8xf32>
    }
    %w = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %w, %out : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}

// -----

// Three passes with an early exit: after passes 0 and 1 the read-out is tested;
// the exit branch keeps the read-out row, the other resumes; leave after pass 2.
// CHECK-LABEL: kiln.model @with_exit dory
// CHECK-NOT: kiln.loop %
// CHECK: [[H0:%[0-9]+]] = kiln.mix enter [[LS:%[0-9]+]], {{%[0-9]+}}
// CHECK: [[P0:%[0-9]+]] = kiln.slerp_residual [[H0]]
// CHECK-NEXT: [[R0:%[0-9]+]] = kiln.mix exit_readout [[LS]], [[P0]]
// CHECK-NEXT: [[L0:%[0-9]+]] = kiln.log_softmax [[R0]]
// CHECK-NEXT: [[M0:%[0-9]+]] = kiln.max_prob [[L0]]
// CHECK-NEXT: [[T0:%.+]] = arith.constant 8.000000e-01 : f32
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.cmpf oge, [[M0]], [[T0]] : f32
// CHECK-NEXT: [[IF0:%[0-9]+]] = scf.if [[C0]] -> (tensor<8xf32>) {
// CHECK-NEXT: scf.yield [[R0]] : tensor<8xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: [[S1:%[0-9]+]] = kiln.mix resume [[LS]], [[R0]]
// CHECK: [[P1:%[0-9]+]] = kiln.slerp_residual [[S1]]
// CHECK-NEXT: [[R1:%[0-9]+]] = kiln.mix exit_readout [[LS]], [[P1]]
// CHECK: [[IF1:%[0-9]+]] = scf.if
// CHECK-NEXT: scf.yield [[R1]] : tensor<8xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: [[S2:%[0-9]+]] = kiln.mix resume [[LS]], [[R1]]
// CHECK: [[P2:%[0-9]+]] = kiln.slerp_residual [[S2]]
// CHECK-NEXT: [[OUT:%[0-9]+]] = kiln.mix leave [[LS]], [[P2]]
// CHECK-NEXT: scf.yield [[OUT]] : tensor<8xf32>
// CHECK: scf.yield [[IF1]] : tensor<8xf32>
// CHECK: kiln.matvec {{%[0-9]+}}, [[IF0]]
kiln.model @with_exit dory attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @head : !kiln.weight<[4, 8], f16>
  kiln.weight_decl @layers.0.alpha_attn : tensor<8xf32>
  kiln.state_decl @loop : !kiln.loop_state<hidden = 8>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4, 8], f16>
    %h = kiln.embed %e[%token] : !kiln.weight<[4, 8], f16> -> tensor<8xf32>
    %ls = kiln.state @loop : !kiln.loop_state<hidden = 8>
    %out = kiln.loop %h, %ls passes(3) exit_threshold(8.0e-01) : tensor<8xf32>, !kiln.loop_state<hidden = 8> body {
    ^bb0(%x: tensor<8xf32>, %pass: index):
      %a = kiln.weight @layers.0.alpha_attn : tensor<8xf32>
      %y = kiln.slerp_residual %x, %x, %a {eps = 1.0e-06 : f32} : tensor<8xf32>
      kiln.yield %y : tensor<8xf32>
    } readout {
    ^bb0(%x: tensor<8xf32>):
      %lp = kiln.log_softmax %x : tensor<8xf32>
      %p = kiln.max_prob %lp : tensor<8xf32>
      kiln.yield %p : f32
    }
    %w = kiln.weight @head : !kiln.weight<[4, 8], f16>
    %l = kiln.matvec %w, %out : !kiln.weight<[4, 8], f16>, tensor<8xf32> -> tensor<4xf32>
    %lp = kiln.log_softmax %l : tensor<4xf32>
    kiln.return %lp : tensor<4xf32>
  }
}
