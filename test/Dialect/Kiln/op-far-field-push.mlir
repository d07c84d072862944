// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.far_field_push: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @far_field_push
// CHECK: kiln.far_field_push %arg0, %arg1, %arg2 {scale = 4.000000e+00 : f32, window = 8 : i64} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
// CHECK-NEXT: return
func.func @far_field_push(%ff: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, %r: !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, %pos: index) {
  kiln.far_field_push %ff, %r, %pos {scale = 4.000000e+00 : f32, window = 8 : i64} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
  return
}
