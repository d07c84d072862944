// A hand-written stage-level module in the form of docs/pipeline.md: the
// token's f16 embedding, an rms-norm, the cluster logits as the "head"
// (V = 6, read back as logits: the host applies the log-softmax), plus one
// dispatch that depends on nothing before it (so the plan
// writer must leave its barrier out). Scratch values share slot 3 at
// different offsets; weights share slot 0. test/e2e/tiny-head.test runs it.
module attributes {kiln.family = "embryo", kiln.vocab_size = 6 : i64,
                   kiln.max_position = 64 : i64, kiln.weight_format = "f16",
                   kiln.config = "{}"} {
  func.func @decode(
      %embed: memref<6x2xvector<4xi32>> {stage.buffer = #stage.buffer<kind = weight, name = "embed", slot = 0, byte_offset = 0, byte_size = 192,
          tensors = [#stage.tensor<name = "embed.weight", dtype = "F16", shape = [6, 16], layout = "F16RowMajor", byte_offset = 0, row_pitch_bytes = 0>]>},
      %norm: memref<16xf32> {stage.buffer = #stage.buffer<kind = weight, name = "norm", slot = 0, byte_offset = 256, byte_size = 64,
          tensors = [#stage.tensor<name = "norm.weight", dtype = "F16", shape = [16], layout = "F16ToF32", byte_offset = 0>]>},
      %clusters: memref<6x16xf32> {stage.buffer = #stage.buffer<kind = weight, name = "clusters", slot = 0, byte_offset = 512, byte_size = 384,
          tensors = [#stage.tensor<name = "head.clusters", dtype = "F32", shape = [6, 16], layout = "F32", byte_offset = 0>]>},
      %params: memref<4xi32> {stage.buffer = #stage.buffer<kind = params, name = "params", slot = 1, byte_offset = 0, byte_size = 16>},
      %logp: memref<6xf32> {stage.buffer = #stage.buffer<kind = readback, name = "logprobs", slot = 2, byte_offset = 0, byte_size = 24>},
      %h: memref<16xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.h", slot = 3, byte_offset = 0, byte_size = 64>},
      %x: memref<16xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.x", slot = 3, byte_offset = 256, byte_size = 64>},
      %s: memref<16xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "plane.probe", slot = 3, byte_offset = 512, byte_size = 64>},
      %flags: memref<4xi32> {stage.buffer = #stage.buffer<kind = state, name = "exit_flags", slot = 4, byte_offset = 0, byte_size = 16>})
      attributes {stage.readback = #stage.readback<arg = 4, byte_offset = 0, count = 6, values = "Logits">,
                  stage.params = [#stage.param<name = "ring_slot", word = 3, rule = "PositionModN", n = 8, row = 0>],
                  stage.device_flags = [#stage.device_flag<name = "early_exit", arg = 8, byte_offset = 4, reset_value = 0>]} {
    stage.dispatch "embed" {
      stage.embed_gather table(%embed : memref<6x2xvector<4xi32>>) params(%params : memref<4xi32>) out(%h : memref<16xf32>)
    }
    stage.dispatch "probe" {
      stage.mul ins(%norm, %norm : memref<16xf32>, memref<16xf32>) out(%s : memref<16xf32>)
    }
    stage.dispatch "final_norm" {
      stage.rmsnorm residual(%h : memref<16xf32>) weight(%norm : memref<16xf32>) outs(%x : memref<16xf32>) {eps = 1.0e-06 : f32}
    }
    stage.dispatch "head" {
      stage.cluster_logits input(%x : memref<16xf32>) clusters(%clusters : memref<6x16xf32>) out(%logp : memref<6xf32>)
    }
    return
  }
}
