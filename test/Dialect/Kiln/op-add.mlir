// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.add: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @add
// CHECK: [[V0:%[0-9]+]] = kiln.add %arg0, %arg1 : tensor<72xf32>
// CHECK-NEXT: return [[V0]] : tensor<72xf32>
func.func @add(%a: tensor<72xf32>, %b: tensor<72xf32>) -> tensor<72xf32> {
  %y = kiln.add %a, %b : tensor<72xf32>
  return %y : tensor<72xf32>
}
