// REQUIRES: compiler
// RUN: not kiln-opt %s 2>&1 | FileCheck %s

// A weight storage format that does not exist.
// CHECK: malformed-bad-format.mlir:[[@LINE+2]]:{{[0-9]+}}: error: expected ::kiln::graph::WeightFormat to be one of: f16, q8_2f
// CHECK-NOT: {{^}}module
func.func @f(%w: !kiln.weight<[4, 4], q4>) {
  return
}
