// REQUIRES: compiler
// kiln-absorb-into-matvec's column fields (`column-fields=true`; off by default):
// Dory's fold `p = h * field` (the field a q8_2f column field, a weight) read only
// by plain q8_2f mat-vecs becomes their `col_scale`, each reading h itself, and the
// mul's dispatch goes. Not when something in between writes h, nor for an f16
// reader (no column field to apply), nor with the option off.
// RUN: kiln-opt %s --split-input-file --kiln-absorb-into-matvec="target-file=%S/Inputs/fuse-boundary-5us.json column-fields=true" | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-absorb-into-matvec="target-file=%S/Inputs/fuse-boundary-5us.json" | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @field_into_readers
// CHECK-NOT:   stage.mul
// CHECK:       stage.dispatch "q" {
// CHECK-NEXT:    stage.matvec weight(%arg3 : memref<64x4xvector<4xi32>>) row_scale(%arg7 : memref<64xf32>) col_scale(%arg1 : memref<64xf32>) input(%arg0 : memref<64xf32>) out(%arg4
// CHECK:       stage.dispatch "k" {
// CHECK-NEXT:    stage.matvec weight(%arg5 : memref<32x4xvector<4xi32>>) row_scale(%arg8 : memref<32xf32>) col_scale(%arg1 : memref<64xf32>) input(%arg0 : memref<64xf32>) out(%arg6
// OFF-LABEL:   func.func @field_into_readers
// OFF:         stage.mul
func.func @field_into_readers(%h: memref<64xf32>,
                              %cs: memref<64xf32> {stage.buffer = #stage.buffer<kind = weight, name = "l0.cs", byte_size = 256, tensors = [#stage.tensor<name = "l0.cs", dtype = "F32", shape = [64], layout = "F32", byte_offset = 0>]>},
                              %p: memref<64xf32>,
                              %mq: memref<64x4xvector<4xi32>>, %q: memref<64xf32>,
                              %mk: memref<32x4xvector<4xi32>>, %k: memref<32xf32>,
                              %sq: memref<64xf32>, %sk: memref<32xf32>) {
  stage.dispatch "fold" {
    stage.mul ins(%h, %cs : memref<64xf32>, memref<64xf32>) out(%p : memref<64xf32>)
  }
  stage.dispatch "q" {
    stage.matvec weight(%mq : memref<64x4xvector<4xi32>>) row_scale(%sq : memref<64xf32>) input(%p : memref<64xf32>) out(%q : memref<64xf32>) {format = #stage.format<q8_2f>}
  }
  stage.dispatch "k" {
    stage.matvec weight(%mk : memref<32x4xvector<4xi32>>) row_scale(%sk : memref<32xf32>) input(%p : memref<64xf32>) out(%k : memref<32xf32>) {format = #stage.format<q8_2f>}
  }
  return
}

// -----

// h is written between the fold and its reader: the reader must see the old h.
// CHECK-LABEL: func.func @h_clobbered
// CHECK:       stage.mul
// CHECK:       input(%arg2 : memref<64xf32>)
func.func @h_clobbered(%h: memref<64xf32>,
                       %cs: memref<64xf32> {stage.buffer = #stage.buffer<kind = weight, name = "l0.cs", byte_size = 256, tensors = [#stage.tensor<name = "l0.cs", dtype = "F32", shape = [64], layout = "F32", byte_offset = 0>]>},
                       %p: memref<64xf32>,
                       %mq: memref<64x4xvector<4xi32>>, %q: memref<64xf32>, %sq: memref<64xf32>) {
  stage.dispatch "fold" {
    stage.mul ins(%h, %cs : memref<64xf32>, memref<64xf32>) out(%p : memref<64xf32>)
  }
  stage.dispatch "bump" {
    stage.add ins(%h, %h : memref<64xf32>, memref<64xf32>) out(%h : memref<64xf32>)
  }
  stage.dispatch "q" {
    stage.matvec weight(%mq : memref<64x4xvector<4xi32>>) row_scale(%sq : memref<64xf32>) input(%p : memref<64xf32>) out(%q : memref<64xf32>) {format = #stage.format<q8_2f>}
  }
  return
}

// -----

// An f16 reader has no column field to apply.
// CHECK-LABEL: func.func @f16_reader
// CHECK:       stage.mul
func.func @f16_reader(%h: memref<64xf32>,
                      %cs: memref<64xf32> {stage.buffer = #stage.buffer<kind = weight, name = "l0.cs", byte_size = 256, tensors = [#stage.tensor<name = "l0.cs", dtype = "F32", shape = [64], layout = "F32", byte_offset = 0>]>},
                      %p: memref<64xf32>,
                      %mq: memref<64x8xvector<4xi32>>, %q: memref<64xf32>) {
  stage.dispatch "fold" {
    stage.mul ins(%h, %cs : memref<64xf32>, memref<64xf32>) out(%p : memref<64xf32>)
  }
  stage.dispatch "q" {
    stage.matvec weight(%mq : memref<64x8xvector<4xi32>>) input(%p : memref<64xf32>) out(%q : memref<64xf32>) {format = #stage.format<f16>}
  }
  return
}
