// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.conv_ring_step: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @conv_ring_step
// CHECK: [[V0:%[0-9]+]] = kiln.conv_ring_step %arg0, %arg1, %arg2 : !kiln.conv_ring<channels = 68, taps = 4>, tensor<68xf32>, tensor<68x4xf32> -> tensor<68xf32>
// CHECK-NEXT: return [[V0]] : tensor<68xf32>
func.func @conv_ring_step(%r: !kiln.conv_ring<channels = 68, taps = 4>, %c: tensor<68xf32>, %taps: tensor<68x4xf32>) -> tensor<68xf32> {
  %y = kiln.conv_ring_step %r, %c, %taps : !kiln.conv_ring<channels = 68, taps = 4>, tensor<68xf32>, tensor<68x4xf32> -> tensor<68xf32>
  return %y : tensor<68xf32>
}

// -----

// CHECK-LABEL: func.func @conv_ring_step_one_tap
// CHECK: [[V0:%[0-9]+]] = kiln.conv_ring_step %arg0, %arg1, %arg2 : !kiln.conv_ring<channels = 6, taps = 1>, tensor<6xf32>, tensor<6x1xf32> -> tensor<6xf32>
// CHECK-NEXT: return [[V0]] : tensor<6xf32>
func.func @conv_ring_step_one_tap(%r: !kiln.conv_ring<channels = 6, taps = 1>, %c: tensor<6xf32>, %taps: tensor<6x1xf32>) -> tensor<6xf32> {
  %y = kiln.conv_ring_step %r, %c, %taps : !kiln.conv_ring<channels = 6, taps = 1>, tensor<6xf32>, tensor<6x1xf32> -> tensor<6xf32>
  return %y : tensor<6xf32>
}
