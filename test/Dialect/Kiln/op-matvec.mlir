// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.matvec: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @matvec_q8_2f
// CHECK: [[V0:%[0-9]+]] = kiln.matvec %arg0, %arg1 : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
// CHECK-NEXT: return [[V0]] : tensor<96xf32>
func.func @matvec_q8_2f(%w: !kiln.weight<[96, 72], q8_2f>, %x: tensor<72xf32>) -> tensor<96xf32> {
  %y = kiln.matvec %w, %x : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<96xf32>
  return %y : tensor<96xf32>
}

// -----

// CHECK-LABEL: func.func @matvec_f16
// CHECK: [[V0:%[0-9]+]] = kiln.matvec %arg0, %arg1 : !kiln.weight<[3, 36], f16>, tensor<36xf32> -> tensor<3xf32>
// CHECK-NEXT: return [[V0]] : tensor<3xf32>
func.func @matvec_f16(%w: !kiln.weight<[3, 36], f16>, %x: tensor<36xf32>) -> tensor<3xf32> {
  %y = kiln.matvec %w, %x : !kiln.weight<[3, 36], f16>, tensor<36xf32> -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @matvec_f32
// CHECK: [[V0:%[0-9]+]] = kiln.matvec %arg0, %arg1 : tensor<16x72xf32>, tensor<72xf32> -> tensor<16xf32>
// CHECK-NEXT: return [[V0]] : tensor<16xf32>
func.func @matvec_f32(%w: tensor<16x72xf32>, %x: tensor<72xf32>) -> tensor<16xf32> {
  %y = kiln.matvec %w, %x : tensor<16x72xf32>, tensor<72xf32> -> tensor<16xf32>
  return %y : tensor<16xf32>
}
