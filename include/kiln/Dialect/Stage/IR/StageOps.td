//===- StageOps.td - Kiln's kernel-sized stages -------------*- tablegen -*-===//
//
// A stage is one kernel-sized step of a token: it names every buffer it reads
// and writes as a static memref operand. Stages sit inside `stage.dispatch`
// regions; a dispatch becomes one GPU kernel (convert-stage-to-gpu).
// Buffer conventions (docs/stages.md): activations are memref<N x f32>;
// matrices are memref<R x G x vector<4xi32>>, each row padded with zeros to a
// whole number of 16-byte groups (8 halves for f16, 16 codes for q8_2f);
// per-token values come from a params buffer memref<P x i32> (P >= 4):
// word 0 token, word 1 position, word 2 head gate (f32 bits), word 3 spare;
// stage.sample's draw reads words 3-5 (temperature, top_p, a random u32), so
// its params hold at least 6 words (7 with its stop token, word 6);
// stage.head_rows reads the head top-p from word 7 when the params hold it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_STAGE_IR_STAGEOPS_TD
#define KILN_DIALECT_STAGE_IR_STAGEOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Stage_Dialect : Dialect {
  let name = "stage";
  let cppNamespace = "::kiln::stage";
  let summary = "Kernel-sized stages and the dispatch regions that group them";
  let description = [{
    Stages are the level between Kiln's model graph and GPU kernels. Each op
    names the buffers it reads and writes (static memrefs) and states the
    rules it needs in its verifier; `stage.dispatch` groups stages into one
    kernel.
  }];
  let useDefaultAttributePrinterParser = 1;
  // The stage module's contract attributes (StageAttrs.td) on functions and
  // their arguments.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
}

class Stage_Op<string mnemonic, list<Trait> traits = []>
    : Op<Stage_Dialect, mnemonic, traits>;

// A stage that acts only in a session's first call (StageTraits.h): later
// calls find its state word set and do nothing, so the runtime leaves a
// dispatch of only such stages out of them (plan.fbs DispatchCalls).
def Stage_FirstCallOnly : NativeOpTrait<"FirstCallOnly"> {
  let cppNamespace = "::kiln::stage";
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Stage_MatrixFormat : I32EnumAttr<"MatrixFormat", "storage form of a matrix", [
    I32EnumAttrCase<"f16", 0>,
    I32EnumAttrCase<"q8_2f", 1>]> {
  let cppNamespace = "::kiln::stage";
  let genSpecializedAttr = 0;
}
def Stage_MatrixFormatAttr : EnumAttr<Stage_Dialect, Stage_MatrixFormat, "format"> {
  let assemblyFormat = "`<` $value `>`";
}

def Stage_Activation : I32EnumAttr<"Activation", "activation applied to a matvec input", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"silu_mul", 1>]> {
  let cppNamespace = "::kiln::stage";
  let genSpecializedAttr = 0;
}
def Stage_ActivationAttr : EnumAttr<Stage_Dialect, Stage_Activation, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

include "kiln/Dialect/Stage/IR/StageAttrs.td"

//===----------------------------------------------------------------------===//
// Buffer type constraints
//===----------------------------------------------------------------------===//

def Stage_Vector : MemRefRankOf<[F32], [1]>;
def Stage_Planes : MemRefRankOf<[F32], [2]>;
def Stage_Cube : MemRefRankOf<[F32], [3]>;
def Stage_Words : MemRefRankOf<[I32], [1]>;
def Stage_PackedMatrix : MemRefRankOf<[VectorOfLengthAndType<[4], [I32]>], [2]>;
def Stage_VectorOrPlanes : MemRefRankOf<[F32], [1, 2]>;

//===----------------------------------------------------------------------===//
// Dispatch region
//===----------------------------------------------------------------------===//

def Stage_DispatchOp : Stage_Op<"dispatch", [SingleBlock, NoTerminator,
    RecursiveMemoryEffects]> {
  let summary = "A group of stages that runs as one GPU kernel";
  let description = [{
    The body holds one or more stage ops in order. One stage lowers to one
    kernel with that stage's grid. Several stages lower to one kernel only when
    each runs in a single workgroup (rmsnorm, router, cluster_logits, slerp,
    dory_mix): the kernel runs them in order with a workgroup barrier between
    them. The buffers used by the stages become the kernel's bindings, in order
    of first use.

    ```mlir
    stage.dispatch "final_norm" {
      stage.rmsnorm residual(%h : memref<200xf32>) weight(%w : memref<200xf32>)
          outs(%x : memref<200xf32>) {eps = 1.0e-06 : f32}
    }
    ```

    Early exit without re-recording (Dory): `skip_if(%flag : memref<Nxi32>)[w]`
    makes the kernel return at once, in every workgroup, when word `w` of
    `%flag` is non-zero (written by `stage.exit_test`). The flag becomes the
    kernel's last binding.

    Fusion (`--kiln-fuse-dispatches`, docs/fusion.md) names its form in
    `fusion`: `"one_workgroup"` runs the stages in one workgroup in order
    with a workgroup barrier between them (a stage of many workgroups walks
    them in turn; no stage needing a workgroup per head); `"concurrent"` runs
    independent stages side by side on disjoint workgroup ranges of one grid;
    `"pointwise"` runs a chain of elementwise stages over one index space,
    thread i computing element i of every stage in turn (no barrier: each
    stage reads and writes only element i); `"row_epilogue"` runs mat-vecs of
    one shape a workgroup per row, then per-row stages (silu_mul, add, ...)
    for that row in the thread that stored the row's values.

    ```mlir
    stage.dispatch "norm__proj" attributes {fusion = "one_workgroup"} {
      stage.rmsnorm residual(%h : memref<64xf32>) weight(%w : memref<64xf32>)
          outs(%x : memref<64xf32>) {eps = 1.0e-06 : f32}
      stage.matvec weight(%m : memref<16x8xvector<4xi32>>) input(%x : memref<64xf32>)
          out(%y : memref<16xf32>) {format = #stage.format<f16>}
    }
    ```

    ```mlir
    stage.dispatch "pass1_prep" skip_if(%exit : memref<1xi32>)[0] {
      stage.dory_mix hidden(%h : memref<64xf32>) entry(%in : memref<64xf32>)
          state(%st : memref<64xf32>) {mode = 4 : i64, eps = 1.0e-06 : f32}
    }
    ```
  }];
  let arguments = (ins OptionalAttr<StrAttr>:$kernel_name,
                       Optional<Stage_Words>:$skip_flag,
                       OptionalAttr<I64Attr>:$skip_word,
                       OptionalAttr<StrAttr>:$fusion);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    ($kernel_name^)?
    (`skip_if` `(` $skip_flag^ `:` type($skip_flag) `)` `[` $skip_word `]`)?
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  // The skip flag's rules (DoryFarFieldOps.cpp), checked after the body.
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::StringRef":$name)>,
    // A dispatch skipped when skipFlag[skipWord] != 0 (Dory's early exit).
    OpBuilder<(ins "::mlir::StringRef":$name, "::mlir::Value":$skipFlag,
                   "int64_t":$skipWord)>];
  let extraClassDeclaration = [{
    /// Every stage of the body is FirstCallOnly (StageTraits.h): the dispatch
    /// runs in a session's first call alone.
    bool runsInFirstCallOnly();
  }];
}

//===----------------------------------------------------------------------===//
// Embryo stages
//===----------------------------------------------------------------------===//

def Stage_EmbedGatherOp : Stage_Op<"embed_gather"> {
  let summary = "Copies the row of the current token out of an f16 table";
  let description = [{
    `out[i] = f32(table[params[0]][i])`: the residual starts as the token's
    embedding (MODELS.md, Embryo step 1). The table is packed f16, 8 halves per
    vector<4xi32>, rows padded to whole groups. A token id at or past the
    vocabulary writes zeros. One thread per 8 values.

    ```mlir
    stage.embed_gather table(%e : memref<50x25xvector<4xi32>>)
        params(%p : memref<4xi32>) out(%h : memref<200xf32>)
    ```
  }];
  let arguments = (ins Stage_PackedMatrix:$table, Stage_Words:$params,
                       Stage_Vector:$out);
  let assemblyFormat = [{
    `table` `(` $table `:` type($table) `)` `params` `(` $params `:` type($params) `)`
    `out` `(` $out `:` type($out) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_RMSNormOp : Stage_Op<"rmsnorm", [AttrSizedOperandSegments]> {
  let summary = "Residual add of split-K planes, then RMSNorm into its consumers' inputs";
  let description = [{
    With `partials` (K planes of H): `h += Σ_k partials[k]` and `h` is written
    back. Then `x = rms(h) ⊙ w` (`w` is `1 + w` under `zero_centered`),
    written to every output; output `i` is multiplied by `folds[i]` (the column
    field of the q8_2f matrix that reads it) when folds are given. One
    workgroup; each lane walks the row with a stride of the workgroup size.
    MODELS.md, Embryo step 2.

    ```mlir
    stage.rmsnorm residual(%h : memref<200xf32>)
        partials(%parts : memref<2x200xf32>) weight(%w : memref<200xf32>)
        outs(%x : memref<200xf32>) {eps = 1.0e-06 : f32, zero_centered}
    ```
  }];
  let arguments = (ins Stage_Vector:$residual, Optional<Stage_Planes>:$partials,
                       Stage_Vector:$weight, Variadic<Stage_Vector>:$outs,
                       Variadic<Stage_Vector>:$folds, F32Attr:$eps,
                       UnitAttr:$zero_centered);
  let assemblyFormat = [{
    `residual` `(` $residual `:` type($residual) `)`
    (`partials` `(` $partials^ `:` type($partials) `)`)?
    `weight` `(` $weight `:` type($weight) `)`
    `outs` `(` $outs `:` type($outs) `)`
    (`folds` `(` $folds^ `:` type($folds) `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_MatVecOp : Stage_Op<"matvec", [AttrSizedOperandSegments]> {
  let summary = "y = W x on packed f16 or q8_2f rows, optionally split-K";
  let description = [{
    `y[r] = Σ_c W[r][c] x[c]`, f32 accumulation. `f16`: W packed 8 halves per
    vector<4xi32>. `q8_2f`: 16 int8 codes per vector<4xi32> and
    `y[r] = row_scale[r] · Σ_c q[r][c] x[c]`, where `x` already carries the
    column field (folded by its producer). `activation = silu_mul` reads
    `silu(input) ⊙ up` instead of `input`. With `split_k = K > 1` the row's
    groups are cut into K chunks; chunk k lands in plane k of `out`
    (K x R) and the next norm adds the planes. `accumulate` adds into `out`.
    `fold` multiplies y by the consumer's column field. One workgroup per
    (row, chunk) whose threads read the chunk's 16-byte groups side by side
    (coalesced), then a workgroup reduction.

    `norm` reads `rmsnorm(input) ⊙ norm` instead of `input` (`1 + norm`
    with `norm_zero_centered`; `norm_eps` inside the root): every workgroup
    reduces the input's mean square itself, so the norm costs no dispatch of
    its own (kiln-absorb-into-matvec). Not with an activation or experts.

    `slerp(o, alpha)` reads Dory's residual step of `input` = h instead
    of `input`: `unit(unit(h) + alpha ⊙ (unit(o) − unit(h)))` (stage.slerp,
    `slerp_eps` its eps), every workgroup forming the three norms from one
    pass over h, o and alpha, so the slerp costs no dispatch of its own
    (kiln-absorb-into-matvec). `hidden_out` then receives that new h, written
    by the workgroup of item 0 (h itself is read by the others, so the result
    cannot go back in place). Not with a norm, an activation or experts.

    `col_scale` (q8_2f only) applies the column field inside the stage,
    `x[c] · col_scale[c]` (x after the activation), for an input its producer
    could not fold.

    A routed expert (MODELS.md "FFN") is the matrix an `expert` index picks
    on the device: `expert` is the one word `stage.router` writes, `experts
    = E` the candidates, stacked in `weight` as E·R rows (expert e's row r is
    row e·R + r), and `row_scale` / `col_scale` likewise hold E·R / E·C
    values (`experts` defaults to 1). The output has R rows. An index ≥ E reads expert E−1, so a
    stray word never reads outside the buffer.

    ```mlir
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>)
        input(%x : memref<200xf32>) out(%y : memref<72xf32>)
        {format = #stage.format<f16>}
    stage.matvec weight(%we : memref<384x5xvector<4xi32>>)
        expert(%sel : memref<1xi32>) row_scale(%se : memref<384xf32>)
        col_scale(%te : memref<288xf32>) input(%x : memref<72xf32>)
        out(%y : memref<96xf32>) {experts = 4 : i64, format = #stage.format<q8_2f>}
    ```
  }];
  let arguments = (ins Stage_PackedMatrix:$weight, Optional<Stage_Words>:$expert,
                       Optional<Stage_Vector>:$row_scale,
                       Optional<Stage_Vector>:$col_scale,
                       Stage_Vector:$input, Optional<Stage_Vector>:$norm,
                       Optional<Stage_Vector>:$slerp_update,
                       Optional<Stage_Vector>:$slerp_alpha,
                       Optional<Stage_Vector>:$up,
                       Stage_VectorOrPlanes:$out, Optional<Stage_Vector>:$fold,
                       Optional<Stage_Vector>:$hidden_out,
                       Stage_MatrixFormatAttr:$format,
                       DefaultValuedAttr<Stage_ActivationAttr, "::kiln::stage::Activation::none">:$activation,
                       DefaultValuedAttr<I64Attr, "1">:$split_k,
                       UnitAttr:$accumulate,
                       DefaultValuedAttr<I64Attr, "1">:$experts,
                       OptionalAttr<F32Attr>:$norm_eps,
                       UnitAttr:$norm_zero_centered,
                       OptionalAttr<F32Attr>:$slerp_eps);
  let assemblyFormat = [{
    `weight` `(` $weight `:` type($weight) `)`
    (`expert` `(` $expert^ `:` type($expert) `)`)?
    (`row_scale` `(` $row_scale^ `:` type($row_scale) `)`)?
    (`col_scale` `(` $col_scale^ `:` type($col_scale) `)`)?
    `input` `(` $input `:` type($input) `)`
    (`norm` `(` $norm^ `:` type($norm) `)`)?
    (`slerp` `(` $slerp_update^ `,` $slerp_alpha `:` type($slerp_update) `,`
        type($slerp_alpha) `)`)?
    (`up` `(` $up^ `:` type($up) `)`)?
    `out` `(` $out `:` type($out) `)`
    (`fold` `(` $fold^ `:` type($fold) `)`)?
    (`hidden_out` `(` $hidden_out^ `:` type($hidden_out) `)`)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Output rows: one expert's rows when `expert` is given.
    int64_t getRows();
    int64_t getColumns();
    /// Columns per 16-byte group: 8 for f16, 16 for q8_2f.
    int64_t getGroupWidth();
    /// Candidate matrices stacked in `weight` (1 without `expert`).
    int64_t getNumExperts() { return static_cast<int64_t>(getExperts()); }
  }];
}

class Stage_BinaryOp<string mnemonic, string what> : Stage_Op<mnemonic> {
  let arguments = (ins Stage_Vector:$lhs, Stage_Vector:$rhs, Stage_Vector:$out,
                       Optional<Stage_Vector>:$fold);
  let assemblyFormat = [{
    `ins` `(` $lhs `,` $rhs `:` type($lhs) `,` type($rhs) `)`
    `out` `(` $out `:` type($out) `)`
    (`fold` `(` $fold^ `:` type($fold) `)`)? attr-dict
  }];
  let hasVerifier = 1;
  let description = "`out[i] = " # what # "`, times `fold[i]` when given; one thread per value.\n\n"
    # "```mlir\nstage." # mnemonic # " ins(%a, %b : memref<64xf32>, memref<64xf32>) out(%o : memref<64xf32>)\n```";
}

def Stage_SiluMulOp : Stage_BinaryOp<"silu_mul", "silu(lhs[i]) · rhs[i]"> {
  let summary = "The gated FFN activation silu(a) ⊙ b";
}
def Stage_AddOp : Stage_BinaryOp<"add", "lhs[i] + rhs[i]"> {
  let summary = "Elementwise sum";
}
def Stage_MulOp : Stage_BinaryOp<"mul", "lhs[i] · rhs[i]"> {
  let summary = "Elementwise product (a per-channel scale)";
}
def Stage_SigmoidGateOp : Stage_BinaryOp<"sigmoid_gate", "lhs[i] · σ(rhs[i])"> {
  let summary = "Output gate o ⊙ σ(g) (Dory's attention gate, with g pre-scaled)";
}

def Stage_ConvRingOp : Stage_Op<"conv_ring"> {
  let summary = "Depthwise causal conv over a ring of past inputs, ring shift, silu";
  let description = [{
    Per channel c: `y = x[c]·taps[c][kk−1] + Σ_{j<kk−1} ring[j][c]·taps[c][j]`
    (ring[0] oldest), then the ring shifts by one and stores `x[c]` as newest,
    and `out[c] = silu(y)`. A channel depends on nothing else: one thread per
    channel, the ring updated in place. `ring` is absent when kk = 1.
    MODELS.md, GDN mixer.

    ```mlir
    stage.conv_ring input(%c : memref<96xf32>) taps(%t : memref<96x4xf32>)
        ring(%r : memref<3x96xf32>) out(%cq : memref<96xf32>)
    ```
  }];
  let arguments = (ins Stage_Vector:$input, Stage_Planes:$taps,
                       Optional<Stage_Planes>:$ring, Stage_Vector:$out);
  let assemblyFormat = [{
    `input` `(` $input `:` type($input) `)` `taps` `(` $taps `:` type($taps) `)`
    (`ring` `(` $ring^ `:` type($ring) `)`)? `out` `(` $out `:` type($out) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_GdnStepOp : Stage_Op<"gdn_step", [AttrSizedOperandSegments]> {
  let summary = "Gated delta-rule state step and gated RMSNorm, one workgroup per head";
  let description = [{
    For value head h (key head h / (nv/nk)): q̂, k̂ normalised from `qkv`,
    `g = exp(−exp(a_log[h])·softplus(a[h] + dt_bias[h]))`, `β = σ(b[h])`,
    `S ← g·S + k̂ ⊗ β(v − g·Sᵀk̂)`, `o = Sᵀq̂`, then
    `out_h = rms(o) ⊙ norm ⊙ silu(z_h)` (times `fold` when given). The state
    is [nv, dk, dv] and updated in place; a lane owns value columns.
    `counters` (one zeroed word a value head, given in a multi-row program)
    lets a kernel spread a head's value columns over several workgroups: the
    last of a head's workgroups to finish (counted there) applies the gated
    norm, which spans the head's columns. MODELS.md, GDN mixer.

    ```mlir
    stage.gdn_step qkv(%cq : memref<96xf32>) z(%z : memref<32xf32>)
        a(%a : memref<2xf32>) b(%b : memref<2xf32>) a_log(%al : memref<2xf32>)
        dt_bias(%dt : memref<2xf32>) norm(%n : memref<16xf32>)
        state(%s : memref<2x16x16xf32>) out(%o : memref<32xf32>)
        {num_k_heads = 1 : i64, eps = 1.0e-06 : f32}
    ```
  }];
  let arguments = (ins Stage_Vector:$qkv, Stage_Vector:$z, Stage_Vector:$a,
                       Stage_Vector:$b, Stage_Vector:$a_log, Stage_Vector:$dt_bias,
                       Stage_Vector:$norm, Stage_Cube:$state, Stage_Vector:$out,
                       Optional<Stage_Vector>:$fold, Optional<Stage_Words>:$counters,
                       I64Attr:$num_k_heads,
                       F32Attr:$eps);
  let assemblyFormat = [{
    `qkv` `(` $qkv `:` type($qkv) `)` `z` `(` $z `:` type($z) `)`
    `a` `(` $a `:` type($a) `)` `b` `(` $b `:` type($b) `)`
    `a_log` `(` $a_log `:` type($a_log) `)` `dt_bias` `(` $dt_bias `:` type($dt_bias) `)`
    `norm` `(` $norm `:` type($norm) `)` `state` `(` $state `:` type($state) `)`
    `out` `(` $out `:` type($out) `)` (`fold` `(` $fold^ `:` type($fold) `)`)?
    (`counters` `(` $counters^ `:` type($counters) `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_RopeKvWriteOp : Stage_Op<"rope_kv_write"> {
  let summary = "Rotary embedding of q and k at the token's position; k, v into the ring";
  let description = [{
    Pairs (i, i + rd/2), i < rd/2, of every head rotate by `position·θ_i`,
    `θ_i = rope_theta^(−2i/rd)`; dims ≥ rd pass through. The rotated query goes
    to `q_out`; k (rotated) and v go to ring slot `position mod W` of
    `k_ring`/`v_ring` ([kvh, W, hd]). Position from params word 1. One thread
    per rotated pair or passed-through dim. MODELS.md, anchor mixer.

    ```mlir
    stage.rope_kv_write q(%q : memref<48xf32>) k(%k : memref<16xf32>)
        v(%v : memref<16xf32>) params(%p : memref<4xi32>) q_out(%qr : memref<48xf32>)
        k_ring(%kr : memref<1x8x16xf32>) v_ring(%vr : memref<1x8x16xf32>)
        {rotary_dim = 8 : i64, rope_theta = 10000.0 : f32}
    ```
  }];
  let arguments = (ins Stage_Vector:$q, Stage_Vector:$k, Stage_Vector:$v,
                       Stage_Words:$params, Stage_Vector:$q_out, Stage_Cube:$k_ring,
                       Stage_Cube:$v_ring, I64Attr:$rotary_dim, F32Attr:$rope_theta);
  let assemblyFormat = [{
    `q` `(` $q `:` type($q) `)` `k` `(` $k `:` type($k) `)` `v` `(` $v `:` type($v) `)`
    `params` `(` $params `:` type($params) `)` `q_out` `(` $q_out `:` type($q_out) `)`
    `k_ring` `(` $k_ring `:` type($k_ring) `)` `v_ring` `(` $v_ring `:` type($v_ring) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_KeyScoresOp : Stage_Op<"key_scores", [AttrSizedOperandSegments]> {
  let summary = "A head's attention scores q·k·scale, its keys spread over workgroups";
  let description = [{
    Query head hq (of qh = |q| / hd) reads KV head `g = hq / (qh/kvh)` of the
    [kvh, cap, hd] ring. Its keys, in this order (the walk the consumer,
    stage.attention or stage.window_attention, takes too): the `ns` sink keys
    ([kvh, ns, hd], scored against `sink_q` when given, else `q`), then the
    newest `n_g = min(pos + 1, W_g)` ring rows, newest first: key `ns + d` is
    the row of position `pos − d`, in ring slot `(pos − d) mod cap` (pos =
    params word `position_word`). `W_g` is `group_windows[g]` when given,
    else `window` when given, else cap. Writes `scores[hq, u] = q·k_u ·
    scale` for `u < ns + n_g`; the rest of the row is left as it was.
    A workgroup per (query head, block of keys), so a full window's keys are
    read by many SMs at once. MODELS.md, anchor mixer and Dory near attention.

    ```mlir
    stage.key_scores q(%qr : memref<48xf32>) k_ring(%kr : memref<1x8x16xf32>)
        params(%p : memref<4xi32>) scores(%s : memref<3x8xf32>) {scale = 0.25 : f32}
    ```
  }];
  let arguments = (ins Stage_Vector:$q, Optional<Stage_Vector>:$sink_q,
                       Stage_Cube:$k_ring, Optional<Stage_Cube>:$sink_k,
                       Stage_Words:$params, Stage_Planes:$scores,
                       OptionalAttr<DenseI64ArrayAttr>:$group_windows,
                       OptionalAttr<I64Attr>:$window, F32Attr:$scale,
                       DefaultValuedAttr<I64Attr, "1">:$position_word);
  let assemblyFormat = [{
    `q` `(` $q `:` type($q) `)`
    (`sink_q` `(` $sink_q^ `:` type($sink_q) `)`)?
    `k_ring` `(` $k_ring `:` type($k_ring) `)`
    (`sink_k` `(` $sink_k^ `:` type($sink_k) `)`)?
    `params` `(` $params `:` type($params) `)` `scores` `(` $scores `:` type($scores) `)`
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Sink keys per KV head (0 without sinks).
    int64_t getNumSinks();
    /// W_g of KV head g: its group window, else the window, else the ring.
    int64_t getWindowOf(int64_t kvHead);
  }];
}

def Stage_AttentionOp : Stage_Op<"attention", [AttrSizedOperandSegments]> {
  let summary = "Bounded attention over a ring with sinks and per-group windows";
  let description = [{
    The weights and values of the keys stage.key_scores scored: query head
    hq reads KV head `hq / (qh/kvh)`, its `ns` sink values, then the newest
    `min(position + 1, W_g)` ring rows newest first (W_g = `group_windows[g]`,
    else the ring's capacity: the walk of stage.key_scores, whose scores
    `scores[hq, u]` this op reads). Softmax in which a key more than 16 below
    the head's maximum is dropped from sum and normaliser; `out = Σ w·v`
    (times `fold` when given). A workgroup per (query head, slice of head
    dims): each reads the head's scores (sinks + window weights held in
    workgroup memory: at most kMaxKeys as a kernel of its own, none in a
    split_keys dispatch) and its dims of every value row.
    MODELS.md, anchor mixer.

    ```mlir
    stage.attention scores(%s : memref<3x8xf32>) v_ring(%vr : memref<1x8x16xf32>)
        params(%p : memref<4xi32>) out(%o : memref<48xf32>)
    ```
  }];
  let arguments = (ins Stage_Planes:$scores, Stage_Cube:$v_ring,
                       Optional<Stage_Cube>:$sink_v,
                       Stage_Words:$params, Stage_Vector:$out,
                       Optional<Stage_Vector>:$fold,
                       OptionalAttr<DenseI64ArrayAttr>:$group_windows);
  let assemblyFormat = [{
    `scores` `(` $scores `:` type($scores) `)` `v_ring` `(` $v_ring `:` type($v_ring) `)`
    (`sink_v` `(` $sink_v^ `:` type($sink_v) `)`)?
    `params` `(` $params `:` type($params) `)` `out` `(` $out `:` type($out) `)`
    (`fold` `(` $fold^ `:` type($fold) `)`)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The largest number of keys one head can see: sinks plus the widest
    /// group window, else plus the ring.
    int64_t getMaxKeys();
    static constexpr int64_t kMaxKeys = 4096;
  }];
}

def Stage_RouterOp : Stage_Op<"router", [AttrSizedOperandSegments]> {
  let summary = "Resonance router: the expert with the best score off its subspace";
  let description = [{
    `err_e = |x−μ_e|² − Σ_c (U_e,c·(x−μ_e))²`, `score_e = bias_e − err_e`, or −∞
    where shells are given and `err_e > shells_e`. Writes the top expert's id to
    `selected[0]`; the lower id wins a tie, and expert 0 is picked when every
    expert is masked. One workgroup, a workgroup reduction per expert component.
    MODELS.md, resonance router.

    ```mlir
    stage.router input(%x : memref<200xf32>) centres(%mu : memref<4x200xf32>)
        bias(%b : memref<4xf32>) selected(%sel : memref<1xi32>)
    ```
  }];
  let arguments = (ins Stage_Vector:$input, Stage_Planes:$centres,
                       Optional<Stage_Cube>:$basis, Stage_Vector:$bias,
                       Optional<Stage_Vector>:$shells, Stage_Words:$selected);
  let assemblyFormat = [{
    `input` `(` $input `:` type($input) `)` `centres` `(` $centres `:` type($centres) `)`
    (`basis` `(` $basis^ `:` type($basis) `)`)? `bias` `(` $bias `:` type($bias) `)`
    (`shells` `(` $shells^ `:` type($shells) `)`)?
    `selected` `(` $selected `:` type($selected) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_ClusterLogitsOp : Stage_Op<"cluster_logits"> {
  let summary = "Cluster logits of the hierarchical head";
  let description = [{
    `out = C x`, the raw logits of NC clusters (C f32, NC x H); stage.head_rows
    turns them into log-probabilities. A workgroup per few clusters (the
    mat-vec's row items). MODELS.md, hierarchical head.

    ```mlir
    stage.cluster_logits input(%x : memref<200xf32>)
        clusters(%c : memref<6x200xf32>) out(%lc : memref<6xf32>)
    ```
  }];
  let arguments = (ins Stage_Vector:$input, Stage_Planes:$clusters, Stage_Vector:$out);
  let assemblyFormat = [{
    `input` `(` $input `:` type($input) `)` `clusters` `(` $clusters `:` type($clusters) `)`
    `out` `(` $out `:` type($out) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_HeadRowsOp : Stage_Op<"head_rows"> {
  let summary = "Token log-probabilities of the open clusters";
  let description = [{
    One workgroup per cluster c of `cluster_size` tokens, which first forms
    its cluster's log-probability `lc = z[c] − logsumexp(z)` from the cluster
    logits z (stage.cluster_logits). Below the gate (params word 2, f32 bits;
    −∞ opens all) every token of c gets −1e30 and no row is read; so does c
    when the params hold word 7, the head top-p p (f32 bits) is below 1, and
    the mass of the clusters strictly above c reaches p (the smallest set of
    clusters by mass that reaches p stays open, every tie at its edge too). Otherwise
    `r = R x` over the cluster's rows and `logp = lc + r − logsumexp(r)`.
    Rows packed as in matvec.
    MODELS.md, hierarchical head.

    ```mlir
    stage.head_rows input(%x : memref<200xf32>) rows(%r : memref<24x25xvector<4xi32>>)
        cluster_logits(%z : memref<6xf32>) params(%p : memref<4xi32>)
        out(%logits : memref<24xf32>) {format = #stage.format<f16>}
    ```
  }];
  let arguments = (ins Stage_Vector:$input, Stage_PackedMatrix:$rows,
                       Optional<Stage_Vector>:$row_scale, Stage_Vector:$cluster_logits,
                       Stage_Words:$params, Stage_Vector:$out,
                       Stage_MatrixFormatAttr:$format);
  let assemblyFormat = [{
    `input` `(` $input `:` type($input) `)` `rows` `(` $rows `:` type($rows) `)`
    (`row_scale` `(` $row_scale^ `:` type($row_scale) `)`)?
    `cluster_logits` `(` $cluster_logits `:` type($cluster_logits) `)`
    `params` `(` $params `:` type($params) `)` `out` `(` $out `:` type($out) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_SampleOp : Stage_Op<"sample"> {
  let summary = "The step's next token, picked on the device";
  let description = [{
    Greedy: `out[0] = argmax_i values[i]` (ties to the lower id). With
    `params` and a temperature T = params word 3 (f32 bits) above 0, a draw
    instead: weights `w_i = exp((values[i] − max) / T)`, kept where the weight
    above `w_i` (Σ of the strictly larger weights) is below top_p · Σ w
    (params word 4; every token tied at the cut stays), one token drawn in
    proportion to `w` from the kept set with uniforms derived from the u32
    params word 5 (rejection from the top: docs/runtime.md). `out[1]` holds
    the f32 bits of the picked token's log-probability before temperature:
    `values[t]` for log-probabilities, or `values[t] − logsumexp(values)`
    with `logits`. With no finite maximum (all −∞ or a NaN) `out[0]` is the
    vocabulary size, an id no token has: the runtime reports it. A third word
    `out[2]`, when `out` has one, is the continue word: 0 when the pick equals
    the stop token (params word 6), else 1. One workgroup. The runtime feeds `out[0]` to the next step when it runs many
    tokens per submit (docs/runtime.md).

    ```mlir
    stage.sample values(%lp : memref<256xf32>) params(%p : memref<8xi32>)
        out(%s : memref<2xi32>) {logits}
    ```
  }];
  let arguments = (ins Stage_Vector:$values, Optional<Stage_Words>:$params,
                       Stage_Words:$out, UnitAttr:$logits);
  let assemblyFormat = [{
    `values` `(` $values `:` type($values) `)`
    (`params` `(` $params^ `:` type($params) `)`)?
    `out` `(` $out `:` type($out) `)` attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Dory stages
//===----------------------------------------------------------------------===//

def Stage_DoryPrepOp : Stage_Op<"dory_prep", [AttrSizedOperandSegments]> {
  let summary = "Dory's full rotary, unit heads, query scale, k and v into the ring";
  let description = [{
    Pairs (i, i + hd/2) of every head rotate by `position·θ_i`
    (`θ_i = rope_theta^(−2i/hd)`); then `q ← unit(q) ⊙ s_qk[head]`,
    `k ← unit(k)`; k, v go to ring slot `position mod cap` of the [kvh, cap, hd]
    rings. One workgroup per head. MODELS.md, Dory prep.

    With `capture(landmarks, far_meta)` it also does stage.landmark_capture's
    work (stride `landmark_stride`, the position of params word 1): the
    workgroup of each KV group's first query head stores its prepped query
    into `landmarks[kh][pos / stride]` while the KV head is unsealed, on a
    stride and below m, so the capture costs no dispatch of its own.

    ```mlir
    stage.dory_prep q(%q : memref<64xf32>) k(%k : memref<16xf32>) v(%v : memref<16xf32>)
        s_qk(%s : memref<4x16xf32>) params(%p : memref<4xi32>) q_out(%qo : memref<64xf32>)
        k_ring(%kr : memref<1x8x16xf32>) v_ring(%vr : memref<1x8x16xf32>)
        {rope_theta = 10000.0 : f32, eps = 1.0e-06 : f32}
    ```
  }];
  let arguments = (ins Stage_Vector:$q, Stage_Vector:$k, Stage_Vector:$v,
                       Stage_Planes:$s_qk, Stage_Words:$params, Stage_Vector:$q_out,
                       Stage_Cube:$k_ring, Stage_Cube:$v_ring,
                       Optional<Stage_Cube>:$landmarks, Optional<Stage_Words>:$far_meta,
                       F32Attr:$rope_theta, F32Attr:$eps,
                       OptionalAttr<I64Attr>:$landmark_stride);
  let assemblyFormat = [{
    `q` `(` $q `:` type($q) `)` `k` `(` $k `:` type($k) `)` `v` `(` $v `:` type($v) `)`
    `s_qk` `(` $s_qk `:` type($s_qk) `)` `params` `(` $params `:` type($params) `)`
    `q_out` `(` $q_out `:` type($q_out) `)`
    `k_ring` `(` $k_ring `:` type($k_ring) `)` `v_ring` `(` $v_ring `:` type($v_ring) `)`
    (`capture` `(` $landmarks^ `,` $far_meta `:` type($landmarks) `,` type($far_meta) `)`)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_SlerpOp : Stage_Op<"slerp"> {
  let summary = "nGPT residual: h ← unit(ĥ + α ⊙ (ô − ĥ))";
  let description = [{
    `ĥ = unit(h)`, `ô = unit(update)`, `h ← unit(ĥ + alpha ⊙ (ô − ĥ))`, in
    place. One workgroup. MODELS.md, Dory residual.

    ```mlir
    stage.slerp hidden(%h : memref<64xf32>) update(%o : memref<64xf32>)
        alpha(%a : memref<64xf32>) {eps = 1.0e-06 : f32}
    ```
  }];
  let arguments = (ins Stage_Vector:$hidden, Stage_Vector:$update,
                       Stage_Vector:$alpha, F32Attr:$eps);
  let assemblyFormat = [{
    `hidden` `(` $hidden `:` type($hidden) `)` `update` `(` $update `:` type($update) `)`
    `alpha` `(` $alpha `:` type($alpha) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_DoryMixOp : Stage_Op<"dory_mix"> {
  let summary = "Edges of Dory's looped block";
  let description = [{
    mode 0: `in = st = h`, `h = unit(h)`; mode 1: `st = unit(h)`,
    `h = unit(st + in)`; mode 2: `h = unit(h)`; mode 3: `h = st = unit(h)`;
    mode 4: `h = unit(st + in)`. One workgroup. MODELS.md, loop edges.

    ```mlir
    stage.dory_mix hidden(%h : memref<64xf32>) entry(%in : memref<64xf32>)
        state(%st : memref<64xf32>) {mode = 1 : i64, eps = 1.0e-06 : f32}
    ```
  }];
  let arguments = (ins Stage_Vector:$hidden, Stage_Vector:$entry, Stage_Vector:$state,
                       I64Attr:$mode, F32Attr:$eps);
  let assemblyFormat = [{
    `hidden` `(` $hidden `:` type($hidden) `)` `entry` `(` $entry `:` type($entry) `)`
    `state` `(` $state `:` type($state) `)` attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Dory far field and early exit (docs/stages.md, "Dory: far field and early
// exit"). The far field of a layer lives in four state buffers, all per KV
// head, zeroed at session start:
//   landmarks  memref<kvh x m x hd x f32>      the landmark keys l_a
//   inverse    memref<kvh x m x m x f32>       M, its top-left count x count used
//   far_sums   memref<kvh x m x (hd+2) x f32>  [b][0] z_b, [b][1] n_b, [b][2+d] θ_b[d]
//   far_meta   memref<(3·kvh) x i32>           [3kh] landmark count (0: not sealed),
//                                              [3kh+1] next position to fold,
//                                              [3kh+2] keys folded
// Each workgroup touches only its own KV head's words, so no stage races.
//===----------------------------------------------------------------------===//

def Stage_WindowAttentionOp : Stage_Op<"window_attention", [AttrSizedOperandSegments]> {
  let summary = "Dory's near-window attention plus the Nyström far field and output gate";
  let description = [{
    One row at position `pos` (params word `position_word`, default 1). Query
    head hq reads KV head `hq / (qh/kvh)` (any ratio) of the [kvh, cap, hd]
    v ring (slot `j mod cap`, the layout `stage.dory_prep` writes). Its near
    keys are the KV head's `ns` sink values when `sink_v(...)` is given
    ([kvh, ns, hd]), then positions `pos … max(0, pos+1−window)`, newest
    first: the walk of stage.key_scores with `window`, whose scores `s_j =
    q·k_j · scale` (sinks and window alike, no e^−16 floor) this op reads
    from `scores[hq, j]`. With `far(...)` and once the
    KV head's landmarks are sealed (count > 0) and a key has been folded
    (folded > 0), over its `count` landmarks (reference `attendNearFar`, seed
    `dory_ofar`):
      `e_a = exp(scale·q·l_a − f)`, f = max_a scale·q·l_a;
      `u_b = Σ_a e_a M_ab`, clamped at 0 under `rectify`;
      `c = max(max_j s_j, max_b f + z_b)`;
      `gain_b = u_b · exp(f + z_b − c)`; far mass `F = Σ_b gain_b n_b`;
      a negative F drops the far part (F = 0, no far value).
    Without it, `c = max_j s_j` and F = 0 (j over sinks and window). Then
    `o = (Σ_j e^{s_j−c} v_j + Σ_b gain_b θ_b) / max(Σ_j e^{s_j−c} + F, 1e−30)`
    and `out = o ⊙ σ(gate ⊙ gate_scale)` (times `fold` when given: the column
    field of W_o under q8_2f). A workgroup per (query head, slice of head
    dims); the near weights in workgroup memory (sinks + window ≤ kMaxWindow as
    a kernel of its own; a split_keys dispatch has no such limit).
    MODELS.md, Dory near attention and far field.

    ```mlir
    stage.window_attention q(%q : memref<72xf32>) scores(%s : memref<3x8xf32>)
        v_ring(%vr : memref<1x8x24xf32>) sink_v(%sv : memref<1x3x24xf32>)
        gate(%g : memref<72xf32>) gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>)
        far(%l, %m, %s, %meta : memref<1x3x24xf32>, memref<1x3x3xf32>,
            memref<1x3x26xf32>, memref<3xi32>)
        out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.89898 : f32, rectify}
    ```
  }];
  let arguments = (ins Stage_Vector:$q, Stage_Planes:$scores, Stage_Cube:$v_ring,
                       Optional<Stage_Cube>:$sink_v,
                       Stage_Vector:$gate, Stage_Vector:$gate_scale,
                       Stage_Words:$params,
                       Optional<Stage_Cube>:$landmarks, Optional<Stage_Cube>:$inverse,
                       Optional<Stage_Cube>:$far_sums, Optional<Stage_Words>:$far_meta,
                       Stage_Vector:$out, Optional<Stage_Vector>:$fold,
                       I64Attr:$window, F32Attr:$scale, UnitAttr:$rectify,
                       DefaultValuedAttr<I64Attr, "1">:$position_word);
  let assemblyFormat = [{
    `q` `(` $q `:` type($q) `)` `scores` `(` $scores `:` type($scores) `)`
    `v_ring` `(` $v_ring `:` type($v_ring) `)`
    (`sink_v` `(` $sink_v^ `:` type($sink_v) `)`)?
    `gate` `(` $gate `:` type($gate) `)` `gate_scale` `(` $gate_scale `:` type($gate_scale) `)`
    `params` `(` $params `:` type($params) `)`
    (`far` `(` $landmarks^ `,` $inverse `,` $far_sums `,` $far_meta `:`
        type($landmarks) `,` type($inverse) `,` type($far_sums) `,` type($far_meta) `)`)?
    `out` `(` $out `:` type($out) `)`
    (`fold` `(` $fold^ `:` type($fold) `)`)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Sink keys per KV head (0 without sinks).
    int64_t getNumSinks();
    /// Near scores one workgroup holds in workgroup memory: sinks + window.
    static constexpr int64_t kMaxWindow = 4096;
  }];
}

def Stage_FarFieldPushOp : Stage_Op<"far_field_push"> {
  let summary = "Folds the key leaving Dory's window into the landmark sums";
  let description = [{
    At position `pos ≥ window` (params word `position_word`), key
    `j = pos − window` leaves the window. Per KV head kh, when
    `j ≥ far_meta[3kh+1]` (not folded yet; so a later loop pass at the same
    position, or a repeated push, folds nothing again) it reads k_j, v_j from
    ring slot `j mod cap` and, when the landmarks are sealed
    (`far_meta[3kh] = count > 0`), per landmark b < count (reference
    `FarFieldAccumulator::push`):
      `s = scale · l_b·k_j`; if `s > z_b` (or nothing was folded yet):
      `n_b, θ_b *= exp(z_b − s)`, `z_b = s`; then `n_b += exp(s − z_b)`,
      `θ_b += exp(s − z_b) · v_j`, and `far_meta[3kh+2] += 1`.
    Either way `far_meta[3kh+1] = j + 1`: a key leaving before the seal is
    dropped, as in the reference. The reference folds key pos − window at the
    end of the call at pos and lets row pos already see it: emit this stage once
    per step, before the step's first `window_attention` and, when cap ==
    window, before `dory_prep` overwrites slot `pos mod cap`. One workgroup per
    KV head. MODELS.md, Dory far field.

    ```mlir
    stage.far_field_push k_ring(%kr : memref<1x8x24xf32>) v_ring(%vr : memref<1x8x24xf32>)
        params(%p : memref<4xi32>) landmarks(%l : memref<1x3x24xf32>)
        far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>)
        {window = 5 : i64, scale = 4.89898 : f32}
    ```
  }];
  let arguments = (ins Stage_Cube:$k_ring, Stage_Cube:$v_ring, Stage_Words:$params,
                       Stage_Cube:$landmarks, Stage_Cube:$far_sums,
                       Stage_Words:$far_meta, I64Attr:$window, F32Attr:$scale,
                       DefaultValuedAttr<I64Attr, "1">:$position_word);
  let assemblyFormat = [{
    `k_ring` `(` $k_ring `:` type($k_ring) `)` `v_ring` `(` $v_ring `:` type($v_ring) `)`
    `params` `(` $params `:` type($params) `)`
    `landmarks` `(` $landmarks `:` type($landmarks) `)`
    `far_sums` `(` $far_sums `:` type($far_sums) `)`
    `far_meta` `(` $far_meta `:` type($far_meta) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_LandmarkCaptureOp : Stage_Op<"landmark_capture", [Stage_FirstCallOnly]> {
  let summary = "Keeps a prompt query as a landmark (seed dory_qcopy)";
  let description = [{
    While KV head kh is not sealed (`far_meta[3kh] = 0`), at a position
    `pos` (params word `position_word`) with `pos mod stride = 0` and
    `a = pos / stride < m`, copies the prepped query of the group's first
    query head, `q[kh·(qh/kvh)·hd …]`, into `landmarks[kh][a]`. The reference
    keeps the **pass-0** queries of the **first call** (positions 0, 8, 16, …):
    emit this stage in pass 0 only, after `dory_prep`, for every row; the
    sealed count stops it in later calls. One thread per (KV head, dim).

    ```mlir
    stage.landmark_capture q(%q : memref<72xf32>) params(%p : memref<4xi32>)
        far_meta(%meta : memref<3xi32>) landmarks(%l : memref<1x3x24xf32>)
    ```
  }];
  let arguments = (ins Stage_Vector:$q, Stage_Words:$params, Stage_Words:$far_meta,
                       Stage_Cube:$landmarks,
                       DefaultValuedAttr<I64Attr, "8">:$stride,
                       DefaultValuedAttr<I64Attr, "1">:$position_word);
  let assemblyFormat = [{
    `q` `(` $q `:` type($q) `)` `params` `(` $params `:` type($params) `)`
    `far_meta` `(` $far_meta `:` type($far_meta) `)`
    `landmarks` `(` $landmarks `:` type($landmarks) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_LandmarkSealOp : Stage_Op<"landmark_seal", [Stage_FirstCallOnly]> {
  let summary = "Seals the captured landmarks and forms M = (K + λI)⁻¹";
  let description = [{
    Once per KV head (nothing when `far_meta[3kh] > 0`): with `last` the
    position of the call's last row (params word `position_word`), the count
    is `min(m, last / stride + 1)` (the reference: one landmark per stride
    positions of the first call, at most m, at least 1). Then
    `K_ab = exp(scale · l_a·l_b)`, `λ = 1e−6 · max_a K_aa` (the reference's
    `kNystromRidge`) and `M = (K + λI)⁻¹` by Gauss-Jordan with partial
    pivoting (the first largest |pivot| wins, as in the reference), in f32 in
    workgroup memory (the reference uses double, then rounds M to f32;
    docs/stages.md gives the measured difference). It writes M, zeroes the
    KV head's far sums and fold counter, and stores the count last. The
    reference seals in pass 0 of the first call, after every row's prep and
    before any row attends: emit it there, after the call's captures. One
    workgroup per KV head. A later call finds every count set (at least 1)
    and does nothing, so the runtime records it for the first call only
    (FirstCallOnly).

    ```mlir
    stage.landmark_seal landmarks(%l : memref<1x3x24xf32>) params(%p : memref<4xi32>)
        inverse(%m : memref<1x3x3xf32>) far_sums(%s : memref<1x3x26xf32>)
        far_meta(%meta : memref<3xi32>) {scale = 4.89898 : f32}
    ```
  }];
  let arguments = (ins Stage_Cube:$landmarks, Stage_Words:$params,
                       Stage_Cube:$inverse, Stage_Cube:$far_sums,
                       Stage_Words:$far_meta, F32Attr:$scale,
                       DefaultValuedAttr<I64Attr, "8">:$stride,
                       DefaultValuedAttr<I64Attr, "1">:$position_word);
  let assemblyFormat = [{
    `landmarks` `(` $landmarks `:` type($landmarks) `)`
    `params` `(` $params `:` type($params) `)`
    `inverse` `(` $inverse `:` type($inverse) `)`
    `far_sums` `(` $far_sums `:` type($far_sums) `)`
    `far_meta` `(` $far_meta `:` type($far_meta) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Stage_ExitTestOp : Stage_Op<"exit_test"> {
  let summary = "Dory's early-exit test: sets a flag when every row is confident";
  let description = [{
    `input` holds the read-out's log-probabilities (`memref<V>` or, for R
    rows, `memref<R x V>`), or logits under `logits`. Row r is confident when
    its max probability `exp(max_i logp_r[i]) ≥ threshold`; for logits,
    `logp = l − logsumexp(l)`. When **every** row is confident (the
    reference's multi-row rule), `flag[flag_word] = 1`; otherwise nothing is
    written, so the flag only goes up within a call (the runtime resets it
    each call, `stage.device_flags`). The test compares the max log-prob with
    the least f32 L such that exp(L) ≥ threshold in double, i.e. what the
    reference decides with `exp(double(best)) >= threshold`. Later
    dispatches of the call carry `skip_if(flag)[flag_word]`; the read-out's
    head writes the buffer the readback reads, so on an exit the read-out's
    log-probs are the call's result (reference `DorySession`). One
    workgroup.

    ```mlir
    stage.exit_test input(%lp : memref<256xf32>) flag(%f : memref<1xi32>)
        {threshold = 9.0e-01 : f64}
    ```
  }];
  let arguments = (ins Stage_VectorOrPlanes:$input, Stage_Words:$flag,
                       F64Attr:$threshold, DefaultValuedAttr<I64Attr, "0">:$flag_word,
                       UnitAttr:$logits);
  let assemblyFormat = [{
    `input` `(` $input `:` type($input) `)` `flag` `(` $flag `:` type($flag) `)` attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The least f32 L with exp(double(L)) >= threshold: max logp >= L is
    /// the reference's test.
    float getLogThreshold();
  }];
}

include "kiln/Dialect/Stage/IR/CacheOps.td"
include "kiln/Dialect/Stage/IR/SyncOps.td"

#endif // KILN_DIALECT_STAGE_IR_STAGEOPS_TD
