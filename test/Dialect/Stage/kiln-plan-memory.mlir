// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file --kiln-plan-memory | FileCheck %s

// Weights, state, params and readback get a slot each in argument order
// (0, 1, 2), then scratch buffers share slots by liveness: %a dies (dispatch 1) before %c is
// born (dispatch 2), so %c takes its slot (the smallest free one that fits);
// %b lives across them and keeps its own. A slot is as large as its largest
// buffer, rounded up to 256 bytes.
// CHECK-LABEL: func.func @decode
// CHECK-SAME: {stage.buffer = #stage.buffer<kind = weight, name = "w", slot = 0, byte_size = 32, tensors = [
// CHECK-SAME: {stage.buffer = #stage.buffer<kind = params, name = "params", slot = 1, byte_size = 32>}
// CHECK-SAME: {stage.buffer = #stage.buffer<kind = scratch, name = "a", slot = 3, byte_size = 32>}
// CHECK-SAME: {stage.buffer = #stage.buffer<kind = scratch, name = "b", slot = 4, byte_size = 32>}
// CHECK-SAME: {stage.buffer = #stage.buffer<kind = scratch, name = "c", slot = 3, byte_size = 32>}
// CHECK-SAME: {stage.buffer = #stage.buffer<kind = readback, name = "out", slot = 2, byte_size = 32>}
// CHECK-SAME: stage.slots = [#stage.slot<slot = 0, kind = weight, byte_size = 256>, #stage.slot<slot = 1, kind = params, byte_size = 256>, #stage.slot<slot = 2, kind = readback, byte_size = 256>, #stage.slot<slot = 3, kind = scratch, byte_size = 256>, #stage.slot<slot = 4, kind = scratch, byte_size = 256>]
func.func @decode(
    %w: memref<8xf32> {stage.buffer = #stage.buffer<kind = weight, name = "w", byte_size = 32,
        tensors = [#stage.tensor<name = "w", dtype = "F32", shape = [8], layout = "F32", byte_offset = 0>]>},
    %p: memref<8xi32> {stage.buffer = #stage.buffer<kind = params, name = "params", byte_size = 32>},
    %a: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "a", byte_size = 32>},
    %b: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "b", byte_size = 32>},
    %c: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "c", byte_size = 32>},
    %out: memref<8xf32> {stage.buffer = #stage.buffer<kind = readback, name = "out", byte_size = 32>}) {
  stage.dispatch "a" {
    stage.add ins(%w, %w : memref<8xf32>, memref<8xf32>) out(%a : memref<8xf32>)
  }
  stage.dispatch "b" {
    stage.add ins(%a, %w : memref<8xf32>, memref<8xf32>) out(%b : memref<8xf32>)
  }
  stage.dispatch "c" {
    stage.add ins(%b, %w : memref<8xf32>, memref<8xf32>) out(%c : memref<8xf32>)
  }
  stage.dispatch "out" {
    stage.add ins(%c, %b : memref<8xf32>, memref<8xf32>) out(%out : memref<8xf32>)
  }
  return
}

// -----

// A hand-written module without placements: every argument is taken for
// scratch and gets a #stage.buffer (named after its position).
// CHECK-LABEL: func.func @bare
// CHECK-SAME: {stage.buffer = #stage.buffer<kind = scratch, name = "arg0", slot = 0, byte_size = 64>}
// CHECK-SAME: {stage.buffer = #stage.buffer<kind = scratch, name = "arg1", slot = 1, byte_size = 64>}
// CHECK-SAME: stage.slots = [#stage.slot<slot = 0, kind = scratch, byte_size = 256>, #stage.slot<slot = 1, kind = scratch, byte_size = 256>]
func.func @bare(%x: memref<16xf32>, %y: memref<16xf32>) {
  stage.dispatch "copy" {
    stage.add ins(%x, %x : memref<16xf32>, memref<16xf32>) out(%y : memref<16xf32>)
  }
  return
}

// -----

// A function without stage dispatches is left alone.
// CHECK-LABEL: func.func @empty(%{{.*}}: memref<16xf32>) {
func.func @empty(%x: memref<16xf32>) {
  return
}
