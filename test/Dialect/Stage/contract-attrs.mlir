// REQUIRES: compiler
// The stage module's contract attributes (StageAttrs.td) print and parse back
// unchanged: fields at their defaults (byte_offset 0, row_pitch_bytes 0, no
// slot, no tensors, draws / stop_flag false, no values) are left out.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @decode
// CHECK-SAME: %{{.*}}: memref<6x2xvector<4xi32>> {stage.buffer = #stage.buffer<kind = weight, name = "embed", slot = 0, byte_size = 192, tensors = [#stage.tensor<name = "embed.weight", dtype = "F16", shape = [6, 16], layout = "F16RowMajor", byte_offset = 0, row_pitch_bytes = 32>]>}
// CHECK-SAME: %{{.*}}: memref<16xf32> {stage.buffer = #stage.buffer<kind = weight, name = "norms", slot = 0, byte_offset = 256, byte_size = 64, tensors = [#stage.tensor<name = "a", dtype = "F32", shape = [8], layout = "F32", byte_offset = 0>, #stage.tensor<name = "b", dtype = "F32", shape = [8], layout = "F32", byte_offset = 32>]>}
// CHECK-SAME: %{{.*}}: memref<8xi32> {stage.buffer = #stage.buffer<kind = params, name = "params", slot = 1, byte_size = 32>}
// CHECK-SAME: %{{.*}}: memref<6xf32> {stage.buffer = #stage.buffer<kind = readback, name = "logprobs", byte_size = 24>}
// CHECK-SAME: %{{.*}}: memref<3xi32> {stage.buffer = #stage.buffer<kind = state, name = "sampled", slot = 2, byte_size = 12>}
// CHECK-SAME: stage.device_flags = [#stage.device_flag<name = "early_exit", arg = 4, byte_offset = 8, reset_value = 1>]
// CHECK-SAME: stage.params = [#stage.param<name = "ring_slot", word = 3, rule = "PositionModN", n = 8, row = 0>, #stage.param<name = "pi", word = 4, rule = "Constant", value = 3.140000e+00 : f32>]
// CHECK-SAME: stage.readback = #stage.readback<arg = 3, count = 6, values = "LogProbs">
// CHECK-SAME: stage.sampled = #stage.sampled<arg = 4, draws = true>
// CHECK-SAME: stage.slots = [#stage.slot<slot = 0, kind = weight, byte_size = 512>, #stage.slot<slot = 1, kind = params, byte_size = 256>, #stage.slot<slot = 2, kind = state, byte_size = 256>]
func.func @decode(
    %embed: memref<6x2xvector<4xi32>> {stage.buffer = #stage.buffer<kind = weight, name = "embed", slot = 0, byte_offset = 0, byte_size = 192,
        tensors = [#stage.tensor<name = "embed.weight", dtype = "F16", shape = [6, 16], layout = "F16RowMajor", byte_offset = 0, row_pitch_bytes = 32>]>},
    %norms: memref<16xf32> {stage.buffer = #stage.buffer<kind = weight, name = "norms", slot = 0, byte_offset = 256, byte_size = 64,
        tensors = [#stage.tensor<name = "a", dtype = "F32", shape = [8], layout = "F32", byte_offset = 0>,
                   #stage.tensor<name = "b", dtype = "F32", shape = [8], layout = "F32", byte_offset = 32, row_pitch_bytes = 0>]>},
    %params: memref<8xi32> {stage.buffer = #stage.buffer<kind = params, name = "params", slot = 1, byte_size = 32>},
    %logp: memref<6xf32> {stage.buffer = #stage.buffer<kind = readback, name = "logprobs", byte_size = 24>},
    %sampled: memref<3xi32> {stage.buffer = #stage.buffer<kind = state, name = "sampled", slot = 2, byte_size = 12>})
    attributes {stage.slots = [#stage.slot<slot = 0, kind = weight, byte_size = 512>, #stage.slot<slot = 1, kind = params, byte_size = 256>,
                               #stage.slot<slot = 2, kind = state, byte_size = 256>],
                stage.readback = #stage.readback<arg = 3, byte_offset = 0, count = 6, values = "LogProbs">,
                stage.params = [#stage.param<name = "ring_slot", word = 3, rule = "PositionModN", n = 8, row = 0>,
                                #stage.param<name = "pi", word = 4, rule = "Constant", value = 3.14 : f32>],
                stage.device_flags = [#stage.device_flag<name = "early_exit", arg = 4, byte_offset = 8, reset_value = 1>],
                stage.sampled = #stage.sampled<arg = 4, draws = true, stop_flag = false>} {
  return
}
