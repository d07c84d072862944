//===- Passes.td - Passes on Kiln's stage level -------------*- tablegen -*-===//
#ifndef KILN_DIALECT_STAGE_TRANSFORMS_PASSES_TD
#define KILN_DIALECT_STAGE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnPlanMemory : Pass<"kiln-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Place every buffer argument of a stage program in a physical slot";
  let description = [{
    For each `func.func` of stage dispatches (docs/memory.md): weights, state,
    params and readback get a slot each, in argument order; scratch buffers
    share slots by liveness over the dispatch order (greedy interval
    colouring: a buffer takes a free slot whose last user ran strictly
    before its first, the smallest that fits, else the largest free one,
    else a new one). Fills in `slot` (and `byte_offset` 0) of every
    argument's `#stage.buffer` (an argument without one is taken for
    scratch and gets one) and the func's `stage.slots` table. Runs after
    convert-kiln-to-stage; kiln-fuse-dispatches re-runs the scratch part
    after it reorders dispatches.

    Before:
    ```mlir
    func.func @decode(%a: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "a", byte_size = 32>},
                      %b: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "b", byte_size = 32>}, ...)
    ```
    After (a and b never live at once):
    ```mlir
    func.func @decode(%a: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "a", slot = 2, byte_size = 32>},
                      %b: memref<8xf32> {stage.buffer = #stage.buffer<kind = scratch, name = "b", slot = 2, byte_size = 32>}, ...)
        attributes {stage.slots = [..., #stage.slot<slot = 2, kind = scratch, byte_size = 256>]}
    ```
  }];
}

def KilnFuseDispatches : Pass<"kiln-fuse-dispatches", "::mlir::ModuleOp"> {
  let summary = "Merge stage.dispatch regions where the cost model says one kernel is faster";
  let description = [{
    In every function, each run of consecutive `stage.dispatch` ops is first
    put in ASAP order (a dispatch moves up past every dispatch it shares no
    written buffer with, aliasing slots of the memory plan included, so
    siblings such as the projections of one norm sit side by side), then cut
    into groups by `kiln::cost::choosePartition`: dynamic programming over
    the dispatch order where a group is legal when its stages fit a fused
    form (StageFusion.h, docs/fusion.md: `one_workgroup`, any dependence
    kept inside one workgroup; `concurrent`, independent stages on disjoint
    workgroup ranges) and costs the target's estimate of that form plus one
    boundary. A group of several dispatches becomes one dispatch named after
    them (joined by `__`) with its form in `fusion`. Every dispatch gets
    `stage.estimated_us` (f64): kernel plus boundary, the boundary without a
    barrier when it shares nothing with the dispatches since the last one.
    Stages with no fused form (Dory's far field, the exit test, stages this
    pass does not know) stay alone.

    First, with `split-attention`, each lone `stage.key_scores` dispatch and
    the lone stage.attention or stage.window_attention dispatch reading its
    scores become one `fusion = "split_keys"` dispatch (a `stage.key_blocks`
    between them, its partials and per-head counters new state buffers named
    after the dispatch): one kernel where there were two, each workgroup
    summing its `block-keys` keys' values and the last of each head
    combining them (docs/fusion.md, "Split keys").

    Then, with `last-workgroup-tails` (off by default: slower on the H200),
    a dispatch of one-workgroup stages (a
    slerp, a norm, the sample) whose nearest producer is a lone mat-vec,
    per-thread or per-head stage moves up to it and becomes its tail
    (`fusion = "last_workgroup"`: the producer's last workgroup runs it,
    counted by a 16-byte state buffer `last_workgroup.counter` the pass adds)
    where the estimate, one boundary fewer, says it pays.

    The target comes from `target-file`, else `target` (a name looked up as
    `<target-dir>/<name>.json`), else the module attribute `kiln.target` (a
    name, or a dictionary with the descriptor's JSON fields).

    Before (boundary 8 µs, a small projection):
    ```mlir
    stage.dispatch "norm" {
      stage.rmsnorm residual(%h : memref<64xf32>) weight(%w : memref<64xf32>)
          outs(%x : memref<64xf32>) {eps = 1.0e-06 : f32}
    }
    stage.dispatch "proj" {
      stage.matvec weight(%m : memref<16x8xvector<4xi32>>) input(%x : memref<64xf32>)
          out(%y : memref<16xf32>) {format = #stage.format<f16>}
    }
    ```
    After:
    ```mlir
    stage.dispatch "norm__proj" attributes {fusion = "one_workgroup",
                                            stage.estimated_us = 8.1 : f64} {
      stage.rmsnorm ...
      stage.matvec ...
    }
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Target descriptor name, read from <target-dir>/<name>.json">,
    Option<"targetFile", "target-file", "std::string", /*default=*/"\"\"",
           "Path of a target descriptor (wins over target and kiln.target)">,
    Option<"targetDir", "target-dir", "std::string", /*default=*/"KILN_DEFAULT_TARGET_DIR",
           "Folder searched for <target>.json">,
    Option<"boundaryMicros", "boundary-us", "double", /*default=*/"-1.0",
           "Override both boundary costs of the target, in µs (tests); negative keeps the target's">,
    Option<"maxGroup", "max-group", "unsigned", /*default=*/"64",
           "Most dispatches merged into one">,
    Option<"maxBindings", "max-bindings", "unsigned", /*default=*/"31",
           "Most buffers one fused kernel binds (Metal has 31 buffer slots; lavapipe 32 storage buffers per stage)">,
    Option<"reorder", "reorder", "bool", /*default=*/"true",
           "Put each run of dispatches in ASAP order before partitioning">,
    Option<"fuse", "fuse", "bool", /*default=*/"true",
           "Merge dispatches; false only annotates the estimates (one stage per dispatch)">,
    Option<"emitReport", "emit-report", "bool", /*default=*/"false",
           "Emit the fusion report (formatFusionReport) as a remark">,
    Option<"position", "position", "int64_t", /*default=*/"-1",
           "Session position the attention stages are priced at (keys read: min(position + 1, ring)); negative: a full window">,
    Option<"lastWorkgroupTails", "last-workgroup-tails", "bool", /*default=*/"false",
           "After the partition, run a one-workgroup dispatch in the last workgroup of the dispatch it depends on (fusion \"last_workgroup\") where the cost model says it pays">,
    Option<"splitAttention", "split-attention", "bool", /*default=*/"false",
           "Before the partition, merge each stage.key_scores dispatch with the attention dispatch reading its scores into one split_keys kernel (flash-decoding blocks, exact under the e^-16 floor)">,
    Option<"blockKeys", "block-keys", "int64_t", /*default=*/"64",
           "Keys a split_keys workgroup scores and sums (split-attention)">
  ];
}

def KilnAbsorbIntoMatVec : Pass<"kiln-absorb-into-matvec", "::mlir::ModuleOp"> {
  let summary = "Fold elementwise neighbours into mat-vecs where the cost model says it pays";
  let description = [{
    Scales: a `stage.mul` of a mat-vec's output `y` (read by nothing else)
    by a vector `s` becomes the mat-vec's `fold(s)`, the mat-vec writing the
    product (Dory's s_u, s_v scales), when nothing between the two touches
    the product's memory or writes `s`.

    Norms: a `stage.rmsnorm` (no partial planes) whose every output only
    plain mat-vecs read (each its dispatch's only stage, as its input, no
    activation, column scale or experts) costs a one-workgroup dispatch and
    a boundary. Each mat-vec can instead read the residual and normalise it
    itself (`norm`, `norm_eps`, `norm_zero_centered`; the output's q8_2f
    column field becomes its `col_scale`). The pass rewrites when the
    estimates of the normalising mat-vecs are below the norm plus a boundary
    plus the plain mat-vecs, and when nothing in between writes the residual,
    the weight or a field. Runs after the activations.

    Slerps: Dory's residual step `stage.slerp hidden(h) update(o)
    alpha(a)` costs a one-workgroup dispatch and a boundary. The plain
    mat-vecs that read h next (each its dispatch's only stage, under the
    same skip flag, before any other stage uses h) can instead read the old
    h and form the new one themselves (`slerp(o, a)`, `slerp_eps`); the
    first also writes it to a new scratch buffer h' (`hidden_out`: the
    others still read h, so it cannot go back in place), and every later
    use of h reads h'. The pass rewrites when the slerping mat-vecs'
    estimates are below the slerp plus a boundary plus the plain mat-vecs,
    when nothing in between writes o or a, and when every later use of h
    runs under the slerp's skip flag (h' is written only where the readers
    run). Runs after the norms, in program order.

    Column fields (`column-fields`; off in the pass, on in kiln-compile's
    pipeline since the H200 measured dory-1b q8_2f 311.96 -> 356.73
    tokens/s): a `stage.mul` of an activation h by a q8_2f column field (a
    weight) whose product only plain q8_2f mat-vecs read (each its dispatch's only
    stage, after the mul, under its skip flag) costs a pass of its own, and
    in Dory it rides in the slerp's one-workgroup dispatch. Each mat-vec can
    instead read h and apply the field as its `col_scale`, as a normed
    mat-vec does, when nothing in between writes h or the field and the
    estimates say it pays. Runs last.

    Activations: a `stage.silu_mul` whose output only one `stage.matvec` reads (as its
    input, with no activation of its own) costs a dispatch boundary and a
    pass over memory. The mat-vec can instead read `silu(g) ⊙ u` itself
    (`activation = silu_mul`, `up`), recomputing it for every row, and take
    the silu_mul's q8_2f column field as its `col_scale`. The pass rewrites
    when the target's estimate of the activated mat-vec is below the
    silu_mul's kernel plus a boundary plus the plain mat-vec, and when
    nothing between the two dispatches writes g, u or the field. Run before
    kiln-fuse-dispatches; the silu_mul's output plane is left unused.

    Before:
    ```mlir
    stage.dispatch "act" {
      stage.silu_mul ins(%g, %u : memref<128xf32>, memref<128xf32>) out(%z : memref<128xf32>)
    }
    stage.dispatch "down" {
      stage.matvec weight(%m : memref<96x16xvector<4xi32>>) input(%z : memref<128xf32>)
          out(%d : memref<96xf32>) {format = #stage.format<f16>}
    }
    ```
    After:
    ```mlir
    stage.dispatch "down" {
      stage.matvec weight(%m : memref<96x16xvector<4xi32>>) input(%g : memref<128xf32>)
          up(%u : memref<128xf32>) out(%d : memref<96xf32>)
          {activation = #stage.activation<silu_mul>, format = #stage.format<f16>}
    }
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Target descriptor name, read from <target-dir>/<name>.json">,
    Option<"targetFile", "target-file", "std::string", /*default=*/"\"\"",
           "Path of a target descriptor (wins over target and kiln.target)">,
    Option<"targetDir", "target-dir", "std::string", /*default=*/"KILN_DEFAULT_TARGET_DIR",
           "Folder searched for <target>.json">,
    Option<"slerps", "slerps", "bool", /*default=*/"true",
           "Fold Dory's slerps into their readers (false keeps each in a dispatch of its own)">,
    Option<"columnFields", "column-fields", "bool", /*default=*/"false",
           "Fold q8_2f column-field muls (h times a field, read only by plain q8_2f mat-vecs) into those mat-vecs as their col_scale">
  ];
}

def KilnPrefetchWeights : Pass<"kiln-prefetch-weights", "::mlir::ModuleOp"> {
  let summary = "Read the next mat-vecs' weights into the cache while latency-bound dispatches run";
  let description = [{
    A token reads every weight once, from memory; between the mat-vecs run
    dispatches bound by latency, not bytes (a GDN step, attention, Dory's
    slerps and far field), during which the memory bus is idle. This pass
    gives such a dispatch `stage.prefetch` stages (docs/fusion.md, "Weight
    prefetch"): they read the first not yet prefetched groups of the
    matrices the following mat-vecs read, on workgroups of their own, so
    those mat-vecs find them in the last-level cache.

    Per dispatch in program order: its idle time is its estimate
    (`stage.estimated_us`, kiln-fuse-dispatches) less its own bytes at the
    target's read bandwidth; at that bandwidth, the idle time is its prefetch
    budget. The groups go to the next mat-vecs' matrices in order (a routed
    expert's stack is left out: the router picks what is read), while the
    bytes prefetched and not yet read stay within the target's
    `prefetch_cache_bytes` (`cache-bytes` overrides; 0 disables the pass).
    Dispatches holding a mat-vec prefetch nothing unless `from-matvecs`.
    Each mat-vec's estimate then prices the groups it finds in the cache at
    the cache's bandwidth. The prefetches share one 16-byte state buffer as
    their sink (`prefetch.sink`); nothing reads it.

    ```mlir
    stage.dispatch "attn_scores" {
      stage.key_scores ...
      stage.prefetch source(%wo : memref<2048x256xvector<4xi32>>)
          sink(%sink : memref<4xi32>) {first_group = 0 : i64, groups = 262144 : i64}
    }
    stage.dispatch "attn_o" {
      stage.matvec weight(%wo : memref<2048x256xvector<4xi32>>) ...
    }
    ```
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "Target descriptor name, read from <target-dir>/<name>.json">,
    Option<"targetFile", "target-file", "std::string", /*default=*/"\"\"",
           "Path of a target descriptor (wins over target and kiln.target)">,
    Option<"targetDir", "target-dir", "std::string", /*default=*/"KILN_DEFAULT_TARGET_DIR",
           "Folder searched for <target>.json">,
    Option<"cacheBytes", "cache-bytes", "int64_t", /*default=*/"-1",
           "Bytes prefetched and not yet read at most; negative: the target's prefetch_cache_bytes, 0: no prefetch">,
    Option<"fromMatvecs", "from-matvecs", "bool", /*default=*/"false",
           "Let dispatches that hold a mat-vec prefetch too">,
    Option<"maxBindings", "max-bindings", "int64_t", /*default=*/"31",
           "Most buffers a dispatch binds with its prefetches (as kiln-fuse-dispatches)">
  ];
}

#endif // KILN_DIALECT_STAGE_TRANSFORMS_PASSES_TD
