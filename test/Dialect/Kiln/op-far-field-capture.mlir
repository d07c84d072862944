// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.far_field_capture: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @far_field_capture
// CHECK: kiln.far_field_capture %arg0, %arg1, %arg2 {scale = 4.000000e+00 : f32} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, tensor<96xf32>
// CHECK-NEXT: return
func.func @far_field_capture(%ff: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, %q: tensor<96xf32>, %pos: index) {
  kiln.far_field_capture %ff, %q, %pos {scale = 4.000000e+00 : f32, stride = 8 : i64} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, tensor<96xf32>
  return
}

// -----

// CHECK-LABEL: func.func @far_field_capture_default_stride
// CHECK: kiln.far_field_capture %arg0, %arg1, %arg2 {scale = 4.000000e+00 : f32} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, tensor<96xf32>
// CHECK-NEXT: return
func.func @far_field_capture_default_stride(%ff: !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, %q: tensor<96xf32>, %pos: index) {
  kiln.far_field_capture %ff, %q, %pos {scale = 4.000000e+00 : f32} : !kiln.far_field<q_heads = 6, kv_heads = 2, landmarks = 4, head_dim = 16>, tensor<96xf32>
  return
}
