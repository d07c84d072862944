// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.resonance_route: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @resonance_route_basis_shells
// CHECK: [[V0:%[0-9]+]] = kiln.resonance_route %arg0, %arg1, %arg2 basis(%arg3 : tensor<4x2x72xf32>) shells(%arg4 : tensor<4xf32>) : tensor<72xf32>, tensor<4x72xf32>, tensor<4xf32>
// CHECK-NEXT: return [[V0]] : index
func.func @resonance_route_basis_shells(%x: tensor<72xf32>, %mu: tensor<4x72xf32>, %b: tensor<4xf32>, %u: tensor<4x2x72xf32>, %sh: tensor<4xf32>) -> index {
  %e = kiln.resonance_route %x, %mu, %b basis(%u : tensor<4x2x72xf32>) shells(%sh : tensor<4xf32>) : tensor<72xf32>, tensor<4x72xf32>, tensor<4xf32>
  return %e : index
}

// -----

// CHECK-LABEL: func.func @resonance_route_rank0_one_expert
// CHECK: [[V0:%[0-9]+]] = kiln.resonance_route %arg0, %arg1, %arg2 : tensor<72xf32>, tensor<1x72xf32>, tensor<1xf32>
// CHECK-NEXT: return [[V0]] : index
func.func @resonance_route_rank0_one_expert(%x: tensor<72xf32>, %mu: tensor<1x72xf32>, %b: tensor<1xf32>) -> index {
  %e = kiln.resonance_route %x, %mu, %b : tensor<72xf32>, tensor<1x72xf32>, tensor<1xf32>
  return %e : index
}
