// REQUIRES: compiler
// RUN: kiln-opt %examples/embryo-tiny.mlir --kiln-verify-model > %t.1.mlir
// RUN: kiln-opt %t.1.mlir > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s < %t.1.mlir

// examples/embryo-tiny.mlir parses, verifies (op verifiers and --kiln-verify-model)
// and round-trips to identical text. It matches examples/embryo-tiny.json.
// CHECK-LABEL: kiln.model @embryo_tiny embryo attributes {eps = 9.99999997E-7 : f32, hidden = 72 : i64, intermediate = 96 : i64, vocab = 256 : i64, zero_centered_norm}
// CHECK: kiln.state_decl @layers.0.gdn.conv_ring : !kiln.conv_ring<channels = 68, taps = 4>
// CHECK: kiln.state_decl @layers.0.gdn.state : !kiln.gdn_state<v_heads = 3, k_dim = 16, v_dim = 12>
// CHECK: kiln.state_decl @layers.1.attn.kv : !kiln.kv_ring<kv_heads = 2, capacity = 16, head_dim = 16>
// CHECK: ^bb0(%token: index, %position: index, %top_p: f32):
// CHECK: kiln.gdn_step {{.*}} {num_k_heads = 1 : i64}
// CHECK: kiln.ring_attention {{.*}} sinks({{.*}} : tensor<2x2x16xf32>, tensor<2x2x16xf32>) {group_windows = array<i64: 16, 6>, num_q_heads = 6 : i64}
// CHECK: kiln.resonance_route {{.*}} basis({{.*}} : tensor<4x2x72xf32>) shells({{.*}} : tensor<4xf32>)
// CHECK: kiln.expert_select
// CHECK: kiln.top_p_gate {{.*}}, %top_p : tensor<16xf32>
// CHECK: kiln.clustered_head {{.*}} {cluster_size = 16 : i64, num_clusters = 16 : i64}
// CHECK: kiln.return {{.*}} : tensor<256xf32>
