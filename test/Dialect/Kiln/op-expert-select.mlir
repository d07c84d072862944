// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Round trip of kiln.expert_select: print, re-parse, print again, check exact text.

// CHECK-LABEL: func.func @expert_select
// CHECK: [[V0:%[0-9]+]] = kiln.expert_select %arg0[%arg1, %arg2, %arg3] : !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f> -> !kiln.weight<[96, 72], q8_2f>
// CHECK-NEXT: return [[V0]] : !kiln.weight<[96, 72], q8_2f>
func.func @expert_select(%e: index, %w0: !kiln.weight<[96, 72], q8_2f>, %w1: !kiln.weight<[96, 72], q8_2f>, %w2: !kiln.weight<[96, 72], q8_2f>) -> !kiln.weight<[96, 72], q8_2f> {
  %w = kiln.expert_select %e [%w0, %w1, %w2] : !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f>, !kiln.weight<[96, 72], q8_2f> -> !kiln.weight<[96, 72], q8_2f>
  return %w : !kiln.weight<[96, 72], q8_2f>
}
