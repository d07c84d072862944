// REQUIRES: compiler
// RUN: not kiln-opt %s 2>&1 | FileCheck %s

// An op the kiln dialect does not define: located error, non-zero exit.
// CHECK: malformed-unknown-op.mlir:9:8: error: custom op 'kiln.frobnicate' is unknown
// CHECK-NOT: {{^}}module
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // Line 9 below.
  %y = kiln.frobnicate %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
