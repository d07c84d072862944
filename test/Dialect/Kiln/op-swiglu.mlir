// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.swiglu: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @swiglu
// CHECK: [[V0:%[0-9]+]] = kiln.swiglu %arg0, %arg1 : tensor<96xf32>
// CHECK-NEXT: return [[V0]] : tensor<96xf32>
func.func @swiglu(%g: tensor<96xf32>, %u: tensor<96xf32>) -> tensor<96xf32> {
  %y = kiln.swiglu %g, %u : tensor<96xf32>
  return %y : tensor<96xf32>
}
