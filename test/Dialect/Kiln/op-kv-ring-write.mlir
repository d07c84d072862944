// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.kv_ring_write: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @kv_ring_write
// CHECK: kiln.kv_ring_write %arg0, %arg1, %arg2, %arg3 : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<32xf32>
// CHECK-NEXT: return
func.func @kv_ring_write(%r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %k: tensor<32xf32>, %v: tensor<32xf32>, %pos: index) {
  kiln.kv_ring_write %r, %k, %v, %pos : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<32xf32>
  return
}
