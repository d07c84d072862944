//===- CacheOps.td - Stages that only move data into caches -*- tablegen -*-===//
//
// A decode token reads each weight once, so a weight is in no cache when its
// mat-vec starts; but between the mat-vecs run latency-bound kernels (a GDN
// step, attention, Dory's slerps) that leave the memory bus idle. A prefetch
// spends that idle time reading the next mat-vecs' weights into the
// last-level cache (docs/fusion.md, "Weight prefetch"). Included by
// StageOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_STAGE_IR_CACHEOPS_TD
#define KILN_DIALECT_STAGE_IR_CACHEOPS_TD

def Stage_PrefetchOp : Stage_Op<"prefetch"> {
  let summary = "Read a matrix's 16-byte groups into the last-level cache";
  let description = [{
    Reads groups `first_group .. first_group + groups - 1` of `source` (its
    R x G groups in row-major order) and discards them: a prefetch changes
    no value any stage reads. So that the loads are not dropped as dead, each
    thread folds its words into one and stores it into `sink` word 0 only when
    it equals a constant (about once in 2^32 threads); nothing reads `sink`.

    A prefetch rides in a dispatch after its other stages, on workgroups of
    its own appended to the dispatch's grid (convert-stage-to-gpu), so it runs
    while the latency-bound stages before it wait. `kiln-prefetch-weights`
    places them; the cost model sizes them.

    ```mlir
    stage.prefetch source(%w : memref<2048x256xvector<4xi32>>)
        sink(%s : memref<4xi32>) {first_group = 0 : i64, groups = 262144 : i64}
    ```
  }];
  let arguments = (ins Stage_PackedMatrix:$source, Stage_Words:$sink,
                       I64Attr:$first_group, I64Attr:$groups);
  let assemblyFormat = [{
    `source` `(` $source `:` type($source) `)` `sink` `(` $sink `:` type($sink) `)`
    attr-dict
  }];
  let hasVerifier = 1;
}

#endif // KILN_DIALECT_STAGE_IR_CACHEOPS_TD
