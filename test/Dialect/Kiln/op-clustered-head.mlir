// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.clustered_head: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @clustered_head
// CHECK: [[V0:%[0-9]+]] = kiln.clustered_head %arg0, %arg1, %arg2, %arg3 {cluster_size = 16 : i64, num_clusters = 16 : i64} : !kiln.weight<[256, 72], q8_2f>, tensor<72xf32>, tensor<16xf32> -> tensor<256xf32>
// CHECK-NEXT: return [[V0]] : tensor<256xf32>
func.func @clustered_head(%rows: !kiln.weight<[256, 72], q8_2f>, %x: tensor<72xf32>, %lc: tensor<16xf32>, %g: f32) -> tensor<256xf32> {
  %l = kiln.clustered_head %rows, %x, %lc, %g {cluster_size = 16 : i64, num_clusters = 16 : i64} : !kiln.weight<[256, 72], q8_2f>, tensor<72xf32>, tensor<16xf32> -> tensor<256xf32>
  return %l : tensor<256xf32>
}

// -----

// CHECK-LABEL: func.func @clustered_head_uneven
// CHECK: [[V0:%[0-9]+]] = kiln.clustered_head %arg0, %arg1, %arg2, %arg3 {cluster_size = 3 : i64, num_clusters = 7 : i64} : !kiln.weight<[21, 12], f16>, tensor<12xf32>, tensor<7xf32> -> tensor<21xf32>
// CHECK-NEXT: return [[V0]] : tensor<21xf32>
func.func @clustered_head_uneven(%rows: !kiln.weight<[21, 12], f16>, %x: tensor<12xf32>, %lc: tensor<7xf32>, %g: f32) -> tensor<21xf32> {
  %l = kiln.clustered_head %rows, %x, %lc, %g {cluster_size = 3 : i64, num_clusters = 7 : i64} : !kiln.weight<[21, 12], f16>, tensor<12xf32>, tensor<7xf32> -> tensor<21xf32>
  return %l : tensor<21xf32>
}
