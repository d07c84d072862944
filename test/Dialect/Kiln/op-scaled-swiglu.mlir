// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.scaled_swiglu: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @scaled_swiglu
// CHECK: [[V0:%[0-9]+]] = kiln.scaled_swiglu %arg0, %arg1, %arg2, %arg3 : tensor<128xf32>
// CHECK-NEXT: return [[V0]] : tensor<128xf32>
func.func @scaled_swiglu(%g: tensor<128xf32>, %u: tensor<128xf32>, %su: tensor<128xf32>, %sv: tensor<128xf32>) -> tensor<128xf32> {
  %y = kiln.scaled_swiglu %g, %u, %su, %sv : tensor<128xf32>
  return %y : tensor<128xf32>
}
