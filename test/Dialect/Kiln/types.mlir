// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.types: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @types
// CHECK: return
func.func @types(%a: !kiln.weight<[1, 1], f16>, %b: !kiln.weight<[7, 13], q8_2f>, %c: !kiln.kv_ring<kv_heads = 1, capacity = 5, head_dim = 12>, %d: !kiln.gdn_state<v_heads = 5, k_dim = 4, v_dim = 20>, %e: !kiln.conv_ring<channels = 3, taps = 2>, %f: !kiln.far_field<q_heads = 3, kv_heads = 1, landmarks = 32, head_dim = 4>, %g: !kiln.loop_state<hidden = 4>) {
  return
}
