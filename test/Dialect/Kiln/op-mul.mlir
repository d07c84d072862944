// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.mul: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @mul
// CHECK: [[V0:%[0-9]+]] = kiln.mul %arg0, %arg1 : tensor<72xf32>
// CHECK-NEXT: return [[V0]] : tensor<72xf32>
func.func @mul(%a: tensor<72xf32>, %b: tensor<72xf32>) -> tensor<72xf32> {
  %y = kiln.mul %a, %b : tensor<72xf32>
  return %y : tensor<72xf32>
}
