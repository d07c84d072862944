// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.gdn_gates: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @gdn_gates
// CHECK: %decay, %beta = kiln.gdn_gates %arg0, %arg1, %arg2, %arg3 : tensor<3xf32>
// CHECK-NEXT: [[V0:%[0-9]+]] = kiln.add %decay, %beta : tensor<3xf32>
// CHECK-NEXT: return [[V0]] : tensor<3xf32>
func.func @gdn_gates(%a: tensor<3xf32>, %b: tensor<3xf32>, %al: tensor<3xf32>, %dt: tensor<3xf32>) -> tensor<3xf32> {
  %g, %beta = kiln.gdn_gates %a, %b, %al, %dt : tensor<3xf32>
  %y = kiln.add %g, %beta : tensor<3xf32>
  return %y : tensor<3xf32>
}
