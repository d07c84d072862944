// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.silu: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @silu
// CHECK: [[V0:%[0-9]+]] = kiln.silu %arg0 : tensor<68xf32>
// CHECK-NEXT: return [[V0]] : tensor<68xf32>
func.func @silu(%a: tensor<68xf32>) -> tensor<68xf32> {
  %y = kiln.silu %a : tensor<68xf32>
  return %y : tensor<68xf32>
}
