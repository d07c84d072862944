// REQUIRES: compiler
// RUN: not kiln-opt %s 2>&1 | FileCheck %s

// A config value outside its rule (3 query heads on 2 KV heads) and an unknown
// storage format: both located, non-zero exit.
// CHECK: malformed-bad-config.mlir:[[@LINE+4]]:8: error: 'kiln.ring_attention' op num_q_heads (3) must be a multiple of the KV heads (2)
// CHECK-NOT: {{^}}module
func.func @f(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>,
             %q: tensor<48xf32>, %p: index) -> tensor<48xf32> {
  %o = kiln.ring_attention %r, %q, %q, %p {num_q_heads = 3 : i64} : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<48xf32>
  return %o : tensor<48xf32>
}
