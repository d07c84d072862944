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

#endif // KILN_DIALECT_STAGE_IR_SYNCOPS_TD
