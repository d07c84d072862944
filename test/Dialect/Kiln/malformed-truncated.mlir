// REQUIRES: compiler
// RUN: not kiln-opt %s 2>&1 | FileCheck %s

// A file cut off in the middle of a model: located error, non-zero exit, no output.
// CHECK: malformed-truncated.mlir:{{[0-9]+}}:{{[0-9]+}}: error:
// CHECK-NOT: {{^}}module
kiln.model @cut embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
  kiln.step {
  ^bb0(%token: index, %position: index):
    %e = kiln.weight @embed : !kiln.weight<[4,
