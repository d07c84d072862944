// REQUIRES: compiler
// RUN: kiln-opt %examples/dory-tiny.mlir --kiln-verify-model > %t.1.mlir
// RUN: kiln-opt %t.1.mlir > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s < %t.1.mlir
// RUN: kiln-opt %examples/dory-tiny.mlir --kiln-expand-loop --kiln-verify-model | FileCheck %s --check-prefix=EXPANDED

// examples/dory-tiny.mlir parses, verifies and round-trips to identical text; its
// loop expands into edges that still verify. It matches examples/dory-tiny.json.
// CHECK-LABEL: kiln.model @dory_tiny dory
// CHECK: kiln.state_decl @layers.0.attn.far : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>
// CHECK: kiln.loop {{.*}} passes(2) exit_threshold(0.899999976)
// CHECK: kiln.qk_prep
// CHECK: kiln.far_field_capture
// CHECK: kiln.far_field_push
// CHECK: kiln.window_attention {{.*}} far(
// CHECK: kiln.output_gate
// CHECK: kiln.scaled_swiglu
// CHECK: kiln.slerp_residual
// CHECK: } readout {
// CHECK: kiln.max_prob
// EXPANDED-NOT: kiln.loop %
// EXPANDED: kiln.mix enter
// EXPANDED: kiln.mix exit_readout
// EXPANDED: scf.if
// EXPANDED: kiln.mix resume
// EXPANDED: kiln.mix leave
