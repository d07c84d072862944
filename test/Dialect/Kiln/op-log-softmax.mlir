// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.log_softmax: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @log_softmax
// CHECK: [[V0:%[0-9]+]] = kiln.log_softmax %arg0 : tensor<16xf32>
// CHECK-NEXT: return [[V0]] : tensor<16xf32>
func.func @log_softmax(%a: tensor<16xf32>) -> tensor<16xf32> {
  %y = kiln.log_softmax %a : tensor<16xf32>
  return %y : tensor<16xf32>
}
