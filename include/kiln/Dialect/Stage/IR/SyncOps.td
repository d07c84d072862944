//===- SyncOps.td - Ordering work between a dispatch's workgroups -*- tablegen -*-===//
//
// A stage that needs all of another's output (a slerp after the mat-vec
// producing its update, a sample after the head) costs a dispatch boundary
// of its own: a barrier and a kernel that waits on memory from its first
// instruction. When it runs in one workgroup, the workgroup that finishes
// the producer last can run it instead (docs/fusion.md, "Last-workgroup
// tails"). Included by StageOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_STAGE_IR_SYNCOPS_TD
#define KILN_DIALECT_STAGE_IR_SYNCOPS_TD

def Stage_LastWorkgroupOp : Stage_Op<"last_workgroup"> {
  let summary = "Run the rest of the dispatch in the workgroup that finishes last";
  let description = [{
    Splits a `fusion = "last_workgroup"` dispatch: the stage before it runs on
    its own grid; the stages after it run, in order, in the one workgroup that
    finishes the stage before it last. Each workgroup, once its share is
    written, releases its writes at device scope and adds one to `counter`
    word 0; the workgroup whose add brings the word to the grid's size resets
    it to zero, acquires the others' writes and runs the rest. No workgroup
    waits for another, so the form assumes nothing about which workgroups are
    resident together. The counter is zero between dispatches; dispatches
    sharing it are ordered by it (it is written by each).

    ```mlir
    stage.dispatch "o__slerp" attributes {fusion = "last_workgroup"} {
      stage.matvec weight(%m : memref<64x8xvector<4xi32>>) input(%x : memref<64xf32>)
          out(%o : memref<64xf32>) {format = #stage.format<f16>}
      stage.last_workgroup counter(%c : memref<4xi32>)
      stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>)
          alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
    }
    ```
  }];
  let arguments = (ins Stage_Words:$counter);
  let assemblyFormat = [{
    `counter` `(` $counter `:` type($counter) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_KeyBlocksOp : Stage_Op<"key_blocks"> {
  let summary = "Split one head's softmax over the workgroups that score its keys";
  let description = [{
    Splits a `fusion = "split_keys"` dispatch, `[stage.key_scores,
    stage.key_blocks, stage.attention | stage.window_attention]`, into one
    kernel on the key_scores grid: each workgroup scores one block of
    B = `block_keys` keys of one query head (block b: keys b·B ... b·B + B − 1
    of the walk; blocks · B covers a scores row), then sums that block's
    values against its own maximum and writes, at `partials[head, b]`: its
    maximum m_b, its weight sum l_b, the lowest score it kept, and the
    weighted value sums o_b[d] (so `hd + 3` floats). Under stage.attention's
    e^−16 floor a block keeps the keys within 16 of m_b. The last workgroup
    of each head to finish (per-head word of `counters`, the pattern of
    stage.last_workgroup) takes M = max m_b and combines: a block with m_b
    more than 16 below M is dropped, a block whose lowest kept score is more
    than 16 below M is summed again from its stored scores against M, and
    every other block is scaled by e^(m_b − M): the same keys and weights as
    reading the whole score row. stage.window_attention (no floor) adds its
    far part and gate there. The counters are zero between dispatches.

    ```mlir
    stage.dispatch "ring.scores__ring.attention" attributes {fusion = "split_keys"} {
      stage.key_scores q(%q : memref<32xf32>) k_ring(%k : memref<1x64x16xf32>)
          params(%p : memref<4xi32>) scores(%s : memref<2x64xf32>) {scale = 0.25 : f32}
      stage.key_blocks partials(%b : memref<2x1x19xf32>) counters(%c : memref<2xi32>)
          {block_keys = 64 : i64}
      stage.attention scores(%s : memref<2x64xf32>) v_ring(%v : memref<1x64x16xf32>)
          params(%p : memref<4xi32>) out(%o : memref<32xf32>)
    }
    ```
  }];
  let arguments = (ins Stage_Cube:$partials, Stage_Words:$counters, I64Attr:$block_keys);
  let assemblyFormat = [{
    `partials` `(` $partials `:` type($partials) `)`
    `counters` `(` $counters `:` type($counters) `)` attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Blocks a head's keys are split into (partials' second dimension).
    int64_t getNumBlocks();
    /// Floats a block writes: m_b, l_b, its lowest kept score, hd sums.
    static constexpr int64_t kHeaderFloats = 3;
    /// The combine holds two floats a block in workgroup memory, and a
    /// block's workgroup its block_keys scores.
    static constexpr int64_t kMaxBlocks = 1024;
    static constexpr int64_t kMaxBlockKeys = 4096;
  }];
}

#endif // KILN_DIALECT_STAGE_IR_SYNCOPS_TD
