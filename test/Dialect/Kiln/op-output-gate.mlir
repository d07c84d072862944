// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.output_gate: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @output_gate
// CHECK: [[V0:%[0-9]+]] = kiln.output_gate %arg0, %arg1, %arg2 : tensor<96xf32>
// CHECK-NEXT: return [[V0]] : tensor<96xf32>
func.func @output_gate(%o: tensor<96xf32>, %g: tensor<96xf32>, %s: tensor<96xf32>) -> tensor<96xf32> {
  %y = kiln.output_gate %o, %g, %s : tensor<96xf32>
  return %y : tensor<96xf32>
}
