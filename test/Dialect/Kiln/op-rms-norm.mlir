// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.rms_norm: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @rms_norm_zero_centered
// CHECK: [[V0:%[0-9]+]] = kiln.rms_norm %arg0, %arg1 {eps = 9.99999997E-7 : f32, zero_centered} : tensor<72xf32>
// CHECK-NEXT: return [[V0]] : tensor<72xf32>
func.func @rms_norm_zero_centered(%x: tensor<72xf32>, %w: tensor<72xf32>) -> tensor<72xf32> {
  %y = kiln.rms_norm %x, %w {eps = 1.0e-06 : f32, zero_centered} : tensor<72xf32>
  return %y : tensor<72xf32>
}

// -----

// CHECK-LABEL: func.func @rms_norm_plain
// CHECK: [[V0:%[0-9]+]] = kiln.rms_norm %arg0, %arg1 {eps = 9.99999974E-6 : f32} : tensor<36xf32>
// CHECK-NEXT: return [[V0]] : tensor<36xf32>
func.func @rms_norm_plain(%x: tensor<36xf32>, %w: tensor<36xf32>) -> tensor<36xf32> {
  %y = kiln.rms_norm %x, %w {eps = 1.0e-05 : f32} : tensor<36xf32>
  return %y : tensor<36xf32>
}
