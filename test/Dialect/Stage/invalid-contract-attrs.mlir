// REQUIRES: compiler
// The Stage dialect verifies the contract attributes (StageAttrs.td): each
// attribute its own fields, the dialect where they sit.
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#stage.buffer 'x': only a weight buffer holds tensors, not a scratch buffer}}
func.func @scratch_tensors(%x: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "x", byte_size = 32, tensors = [#stage.tensor<name = "t", dtype = "F32", shape = [8], layout = "F32", byte_offset = 0>]>}) {
  return
}

// -----

// expected-error @+1 {{#stage.buffer 'w': a weight buffer lists the tensors placed in it}}
func.func @weight_without_tensors(%w: memref<8xf32> {stage.buffer = #stage.buffer<kind = weight, name = "w", byte_size = 32>}) {
  return
}

// -----

// expected-error @+1 {{#stage.buffer slot -2 is negative}}
func.func @negative_slot(%x: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "x", slot = -2, byte_size = 32>}) {
  return
}

// -----

// expected-error @+1 {{argument 0 ('x'): byte_size 64 differs from its type's 32 bytes}}
func.func @size_mismatch(%x: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "x", byte_size = 64>}) {
  return
}

// -----

// A multi-row program's activation: rows of its type (docs/pipeline.md, "Rows").
// expected-error @+1 {{argument 0 ('x'): byte_size 64 differs from its type's 32 bytes x 4 rows}}
func.func @rows_size_mismatch(%x: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "x", byte_size = 64, rows = 4>}) attributes {kiln.max_rows = 4 : i64} {
  return
}

// -----

// expected-error @+1 {{argument 0 ('x'): holds 4 rows, more than the program's kiln.max_rows (2)}}
func.func @rows_past_program(%x: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "x", byte_size = 128, rows = 4>}) attributes {kiln.max_rows = 2 : i64} {
  return
}

// -----

// expected-error @+1 {{#stage.buffer 's': only an activation (scratch or readback) holds a row per call row, not a state buffer}}
func.func @state_rows(%s: memref<8xf32> {stage.buffer = #stage.buffer<kind = state, name = "s", byte_size = 64, rows = 2>}) attributes {kiln.max_rows = 2 : i64} {
  return
}

// -----

// expected-error @+1 {{#stage.buffer 'x': rows 0 is not in [1, 1024]}}
func.func @zero_rows(%x: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "x", byte_size = 32, rows = 0>}) {
  return
}

// -----

// expected-error @+2 {{#stage.tensor 't': dimension 0 is not positive}}
// expected-error @+1 {{failed to parse Stage_BufferAttr parameter 'tensors'}}
func.func @zero_dim(%w: memref<8xf32> {stage.buffer = #stage.buffer<kind = weight, name = "w", byte_size = 32, tensors = [#stage.tensor<name = "t", dtype = "F32", shape = [8, 0], layout = "F32", byte_offset = 0>]>}) {
  return
}

// -----

// expected-error @+2 {{#stage.tensor byte_offset 6 is not a multiple of 4 bytes}}
// expected-error @+1 {{failed to parse Stage_BufferAttr parameter 'tensors'}}
func.func @tensor_offset(%w: memref<8xf32> {stage.buffer = #stage.buffer<kind = weight, name = "w", byte_size = 32, tensors = [#stage.tensor<name = "t", dtype = "F32", shape = [8], layout = "F32", byte_offset = 6>]>}) {
  return
}

// -----

// expected-error @+1 {{'stage.readback' names argument 1 of 1}}
func.func @readback_arg(%x: memref<8xf32>) attributes {stage.readback = #stage.readback<arg = 1, count = 8>} {
  return
}

// -----

// expected-error @+1 {{#stage.readback count 0 is not positive}}
func.func @readback_count(%x: memref<8xf32>) attributes {stage.readback = #stage.readback<arg = 0, count = 0>} {
  return
}

// -----

// expected-error @+1 {{'stage.slots' holds #stage.param<name = "p", word = 3, rule = "Token">, not a #stage.slot}}
func.func @slots_of_params(%x: memref<8xf32>) attributes {stage.slots = [#stage.param<name = "p", word = 3, rule = "Token">]} {
  return
}

// -----

// expected-error @+1 {{'stage.device_flags' names argument 2 of 1}}
func.func @flag_arg(%x: memref<8xi32>) attributes {stage.device_flags = [#stage.device_flag<name = "early_exit", arg = 2>]} {
  return
}

// -----

// expected-error @+1 {{#stage.device_flag reset_value 4294967296 is not a 32-bit word}}
func.func @flag_reset(%x: memref<8xi32>) attributes {stage.device_flags = [#stage.device_flag<name = "early_exit", arg = 0, reset_value = 4294967296>]} {
  return
}

// -----

// expected-error @+1 {{'stage.sampled' must be a #stage.sampled}}
func.func @sampled_dictionary(%x: memref<3xi32>) attributes {stage.sampled = {arg = 0 : i64}} {
  return
}

// -----

// expected-error @+1 {{has an unknown stage attribute 'stage.bufer'}}
func.func @misspelt(%x: memref<8xf32>) attributes {stage.bufer = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{argument 0 has an unknown stage attribute 'stage.slot'}}
func.func @arg_misspelt(%x: memref<8xf32> {stage.slot = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{'stage.buffer' belongs on a stage program (a function)}}
module attributes {stage.buffer = #stage.buffer<kind = scratch, name = "x", byte_size = 32>} {
}

// -----

func.func @estimate(%x: memref<8xf32>) {
  // expected-error @+1 {{'stage.estimated_us' must be a float (µs)}}
  stage.dispatch "d" attributes {stage.estimated_us = 3 : i64} {
  }
  return
}

// -----

// Offsets and sizes are bounded (2^48 bytes) so that their sums never
// overflow (a mutation campaign found byte_offset 2^63 - 1 overflowing the
// fusion pass's placement arithmetic).
// expected-error @+1 {{#stage.buffer byte_offset 9223372036854775807 is more than 281474976710656}}
func.func @huge_offset(%x: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "x", slot = 0, byte_offset = 9223372036854775807, byte_size = 32>}) {
  return
}

// -----

// expected-error @+1 {{#stage.param word 4294967296 is more than 16777216}}
func.func @huge_word(%x: memref<8xi32>) attributes {stage.params = [#stage.param<name = "p", word = 4294967296, rule = "Token">]} {
  return
}
