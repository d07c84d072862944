// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.embed: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @embed_f16
// CHECK: [[V0:%[0-9]+]] = kiln.embed %arg0[%arg1] : !kiln.weight<[256, 72], f16> -> tensor<72xf32>
// CHECK-NEXT: return [[V0]] : tensor<72xf32>
func.func @embed_f16(%t: !kiln.weight<[256, 72], f16>, %tok: index) -> tensor<72xf32> {
  %h = kiln.embed %t[%tok] : !kiln.weight<[256, 72], f16> -> tensor<72xf32>
  return %h : tensor<72xf32>
}

// -----

// CHECK-LABEL: func.func @embed_f32
// CHECK: [[V0:%[0-9]+]] = kiln.embed %arg0[%arg1] : tensor<5x12xf32> -> tensor<12xf32>
// CHECK-NEXT: return [[V0]] : tensor<12xf32>
func.func @embed_f32(%t: tensor<5x12xf32>, %tok: index) -> tensor<12xf32> {
  %h = kiln.embed %t[%tok] : tensor<5x12xf32> -> tensor<12xf32>
  return %h : tensor<12xf32>
}
