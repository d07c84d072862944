// REQUIRES: compiler
// RUN: not kiln-opt %s 2>&1 | FileCheck %s

// A matvec whose input does not fit its weight: located error, non-zero exit.
// CHECK: malformed-bad-shape.mlir:[[@LINE+3]]:8: error: 'kiln.matvec' op input has 64 values, expected 72 (the weight's cols)
// CHECK-NOT: {{^}}module
func.func @f(%w: !kiln.weight<[96, 72], f16>, %x: tensor<64xf32>) -> tensor<96xf32> {
  %y = kiln.matvec %w, %x : !kiln.weight<[96, 72], f16>, tensor<64xf32> -> tensor<96xf32>
  return %y : tensor<96xf32>
}
