//===- KilnOps.td - kiln model-graph ops -------------------*- tablegen -*-===//
//
// One op per step of docs/MODELS.md (see docs/dialect.md for the granularity
// choice). Every op states its math and operand order; rules that ODS cannot
// express are in the op's verify() in KilnOps.cpp / KilnModelOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNOPS_TD
#define KILN_DIALECT_KILN_IR_KILNOPS_TD

include "kiln/Dialect/Kiln/IR/KilnDialect.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "kiln/Dialect/Kiln/IR/KilnTypes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

// Reads and writes of persistent state are effects on this resource, tied to the
// state handle operand, so ops on the same state keep their program order.
def Kiln_StateResource : Resource<"::kiln::graph::StateResource">;
class Kiln_StateArg<TypeConstraint type, string desc>
    : Arg<type, desc, [MemRead<Kiln_StateResource>, MemWrite<Kiln_StateResource>]>;
class Kiln_StateReadArg<TypeConstraint type, string desc>
    : Arg<type, desc, [MemRead<Kiln_StateResource>]>;

//===----------------------------------------------------------------------===//
// Model structure
//===----------------------------------------------------------------------===//

def Kiln_ModelOp : Kiln_Op<"model", [Symbol, SymbolTable, IsolatedFromAbove,
    NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "a model: its config, weight and state declarations, and its step";
  let description = [{
    The model-wide config of docs/config.md: `family`, `hidden` (H, `hidden_size`),
    `intermediate` (I, `intermediate_size`), `vocab` (V), `eps` (`rms_norm_eps`) and
    `zero_centered_norm` (Embryo `flags & 1`). Per-layer config (heads, windows,
    experts) lives on the ops that use it. The body holds only `kiln.weight_decl`,
    `kiln.state_decl` and exactly one `kiln.step`.

    ```mlir
    kiln.model @tiny embryo attributes {hidden = 8 : i64, intermediate = 16 : i64,
        vocab = 4 : i64, eps = 1.0e-06 : f32, zero_centered_norm} {
      kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
      kiln.step {
      ^bb0(%token: index, %position: index):
        ...
        kiln.return %logp : tensor<4xf32>
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Kiln_Family:$family,
                       I64Attr:$hidden, I64Attr:$intermediate, I64Attr:$vocab,
                       F32Attr:$eps, UnitAttr:$zero_centered_norm);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name $family attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The model's single step op (the verifier guarantees there is one).
    StepOp getStep();
  }];
}

def Kiln_WeightDeclOp : Kiln_Op<"weight_decl", [Symbol, HasParent<"ModelOp">]> {
  let summary = "declares a weight tensor of the model's safetensors file";
  let description = [{
    The symbol is the tensor's name in docs/weights.md (`@layers.0.attn.q`). A matrix
    has a `!kiln.weight` type (its format says which tensors hold it); every other
    weight is a static f32 tensor, except the embedding table, an f16 matrix.

    ```mlir
    kiln.weight_decl @layers.0.attn.q : !kiln.weight<[96, 64], q8_2f>
    kiln.weight_decl @layers.0.in_norm : tensor<64xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttr:$type);
  let assemblyFormat = "$sym_name `:` $type attr-dict";
  let hasVerifier = 1;
}

def Kiln_StateDeclOp : Kiln_Op<"state_decl", [Symbol, HasParent<"ModelOp">]> {
  let summary = "declares persistent state that lives across steps (zeroed at start)";
  let description = [{
    ```mlir
    kiln.state_decl @layers.1.kv : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttr:$type);
  let assemblyFormat = "$sym_name `:` $type attr-dict";
  let hasVerifier = 1;
}

def Kiln_StepOp : Kiln_Op<"step", [HasParent<"ModelOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "one decode step: (token, position) -> log-probs over the vocabulary";
  let description = [{
    The body's entry block takes the token id and its position (both `index`),
    optionally followed by the session's sampling `top_p` (f32, for
    `kiln.top_p_gate`; a per-token parameter, not a constant), and ends in `kiln.return` of a `tensor<Vxf32>` of log-probabilities (V = the model's
    vocab). Ops run in program order; state ops order through their effects.

    ```mlir
    kiln.step {
    ^bb0(%token: index, %position: index):
      ...
      kiln.return %logp : tensor<256xf32>
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Kiln_ReturnOp : Kiln_Op<"return", [Pure, HasParent<"StepOp">, ReturnLike,
    Terminator]> {
  let summary = "ends a step with its log-probabilities";
  let description = [{
    ```mlir
    kiln.return %logp : tensor<256xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$logprobs);
  let assemblyFormat = "$logprobs attr-dict `:` qualified(type($logprobs))";
}

def Kiln_WeightOp : Kiln_Op<"weight", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the value of a declared weight";
  let description = [{
    ```mlir
    %wq = kiln.weight @layers.0.attn.q : !kiln.weight<[96, 64], q8_2f>
    ```
    The result type must equal the declaration's type.
  }];
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$name attr-dict `:` qualified(type($result))";
}

def Kiln_StateOp : Kiln_Op<"state", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a handle to declared persistent state";
  let description = [{
    Taking the handle has no effect; ops that read or write through it do.

    ```mlir
    %kv = kiln.state @layers.1.kv : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs Kiln_StateType:$result);
  let assemblyFormat = "$name attr-dict `:` qualified(type($result))";
}

//===----------------------------------------------------------------------===//
// Common math
//===----------------------------------------------------------------------===//

def Kiln_EmbedOp : Kiln_Op<"embed", [Pure]> {
  let summary = "h = table[token] (MODELS.md Embryo step 1; Dory's input)";
  let description = [{
    Gathers row `token` of a `[V, H]` table (f16 weight or f32 tensor) as f32.
    A token `>= V` is out of contract: the runtime rejects it before the step.

    ```mlir
    %h = kiln.embed %table[%token] : !kiln.weight<[256, 64], f16> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Kiln_Matrix:$table, Index:$token);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$table `[` $token `]` attr-dict `:` qualified(type($table)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Kiln_RmsNormOp : Kiln_Op<"rms_norm", [Pure, SameOperandsAndResultType]> {
  let summary = "y = rms(x) * w, or rms(x) * (1 + w) when zero_centered";
  let description = [{
    `rms(x) = x / sqrt(mean(x^2) + eps)`; `w` has one entry per element of `x`.
    With `zero_centered` the weight used is `1 + w` (Embryo `flags & 1`).

    ```mlir
    %x = kiln.rms_norm %h, %w {eps = 1.0e-06 : f32, zero_centered} : tensor<64xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$input, Kiln_Activation:$weight,
                       F32Attr:$eps, UnitAttr:$zero_centered);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$input `,` $weight attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Kiln_MatVecOp : Kiln_Op<"matvec", [Pure]> {
  let summary = "y = W x for a [rows, cols] matrix in f16, q8_2f or f32";
  let description = [{
    `y[r] = sum_c W[r][c] * x[c]`, f32 accumulation. For `q8_2f`,
    `W[r][c] = s[r] * q[r][c] * t[c]`: where the column scale `t` is applied (folded
    into the producer of `x`) is a lowering decision, not a graph one.

    ```mlir
    %q = kiln.matvec %wq, %x : !kiln.weight<[96, 64], q8_2f>, tensor<64xf32> -> tensor<96xf32>
    ```
  }];
  let arguments = (ins Kiln_Matrix:$weight, Kiln_Activation:$input);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = [{
    $weight `,` $input attr-dict `:` qualified(type($weight)) `,` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Kiln_AddOp : Kiln_Op<"add", [Pure, Commutative, SameOperandsAndResultType]> {
  let summary = "elementwise a + b (the residual adds of MODELS.md)";
  let description = [{
    ```mlir
    %h1 = kiln.add %h, %a : tensor<64xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$lhs, Kiln_Activation:$rhs);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` qualified(type($result))";
}

def Kiln_MulOp : Kiln_Op<"mul", [Pure, Commutative, SameOperandsAndResultType]> {
  let summary = "elementwise a * b (e.g. Dory's head_scale on the logits)";
  let description = [{
    ```mlir
    %l = kiln.mul %logits, %scale : tensor<256xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$lhs, Kiln_Activation:$rhs);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` qualified(type($result))";
}

def Kiln_SiluOp : Kiln_Op<"silu", [Pure, SameOperandsAndResultType]> {
  let summary = "y = x * sigmoid(x) (GDN's cq = silu(conv output))";
  let description = [{
    ```mlir
    %cq = kiln.silu %y : tensor<64xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$input);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($result))";
}

def Kiln_SwiGluOp : Kiln_Op<"swiglu", [Pure, SameOperandsAndResultType]> {
  let summary = "y = silu(gate) * up (Embryo FFN, shared and routed expert)";
  let description = [{
    ```mlir
    %a = kiln.swiglu %g, %u : tensor<96xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$gate, Kiln_Activation:$up);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$gate `,` $up attr-dict `:` qualified(type($result))";
}

def Kiln_ScaledSwiGluOp : Kiln_Op<"scaled_swiglu", [Pure, SameOperandsAndResultType]> {
  let summary = "y = silu(g * s_u) * (u * s_v) (Dory's scaled MLP)";
  let description = [{
    Operands in order: gate projection `g`, up projection `u`, then the learned
    vectors `s_u` and `s_v` (`layers.{i}.mlp.s_u`, `.s_v`).

    ```mlir
    %a = kiln.scaled_swiglu %g, %u, %su, %sv : tensor<128xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$gate, Kiln_Activation:$up,
                       Kiln_Activation:$gate_scale, Kiln_Activation:$up_scale);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = [{
    $gate `,` $up `,` $gate_scale `,` $up_scale attr-dict `:` qualified(type($result))
  }];
}

def Kiln_LogSoftmaxOp : Kiln_Op<"log_softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "y = x - logsumexp(x)";
  let description = [{
    ```mlir
    %lc = kiln.log_softmax %c : tensor<16xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$input);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($result))";
}

def Kiln_MaxProbOp : Kiln_Op<"max_prob", [Pure]> {
  let summary = "p = exp(max(logp)): the largest probability of a distribution";
  let description = [{
    Used by Dory's early-exit read-out (`kiln.loop` readout region).

    ```mlir
    %p = kiln.max_prob %logp : tensor<256xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$input);
  let results = (outs F32:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input))";
}

//===----------------------------------------------------------------------===//
// Embryo: GDN mixer
//===----------------------------------------------------------------------===//

def Kiln_ConvRingStepOp : Kiln_Op<"conv_ring_step"> {
  let summary = "depthwise causal conv over a ring of past inputs, then shift the ring";
  let description = [{
    Per channel `ch` (MODELS.md GDN mixer): with `kk = taps`,
    `y[ch] = c[ch]*taps[ch][kk-1] + sum_{j<kk-1} ring[j][ch]*taps[ch][j]` (ring[0]
    oldest); then the ring shifts by one and stores `c` as its newest row. Operands:
    the ring, the new input `c` (channels), the taps `[channels, kk]`.

    ```mlir
    %y = kiln.conv_ring_step %ring, %c, %taps : !kiln.conv_ring<channels = 64, taps = 4>,
        tensor<64xf32>, tensor<64x4xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Kiln_StateArg<Kiln_ConvRingType, "conv ring">:$ring,
                       Kiln_Activation:$input, Kiln_Table:$taps);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = [{
    $ring `,` $input `,` $taps attr-dict `:` qualified(type($ring)) `,` qualified(type($input)) `,`
    qualified(type($taps)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Kiln_GdnGatesOp : Kiln_Op<"gdn_gates", [Pure, AllTypesMatch<["a", "b",
    "a_log", "dt_bias", "decay", "beta"]>]> {
  let summary = "decay g and write strength beta of each GDN value head";
  let description = [{
    `g[h] = exp(-exp(A_log[h]) * softplus(a[h] + dt_bias[h]))`, `beta[h] = sigmoid(b[h])`
    (softplus(x) = x past 20). Operands: `a`, `b` (projections), `A_log`, `dt_bias`.

    ```mlir
    %g, %beta = kiln.gdn_gates %a, %b, %alog, %dtb : tensor<4xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$a, Kiln_Activation:$b,
                       Kiln_Activation:$a_log, Kiln_Activation:$dt_bias);
  let results = (outs Kiln_Activation:$decay, Kiln_Activation:$beta);
  let assemblyFormat = "$a `,` $b `,` $a_log `,` $dt_bias attr-dict `:` qualified(type($a))";
}

def Kiln_GdnStepOp : Kiln_Op<"gdn_step", [AllTypesMatch<["decay", "beta"]>]> {
  let summary = "gated-delta-rule update of the state and its read-out o = S^T q";
  let description = [{
    `cq` is the conv output after silu: `q = cq[0 : nk*dk]`, `k = cq[nk*dk : 2*nk*dk]`,
    `v = cq[2*nk*dk : ]` (nv heads of dv). Value head `h` uses key head
    `h / (nv/nk)`. With `qn = q / (sqrt(|q|^2 + qk_eps) * sqrt(dk))`,
    `kn = k / sqrt(|k|^2 + qk_eps)`: `S_h <- g[h]*S_h + kn (x) beta[h]*(v_h - g[h]*S_h^T kn)`
    then `o_h = S_h^T qn`. Result: `o` (nv*dv). Operands: state, cq, g, beta.

    ```mlir
    %o = kiln.gdn_step %s, %cq, %g, %beta {num_k_heads = 2 : i64}
        : !kiln.gdn_state<v_heads = 4, k_dim = 8, v_dim = 8>, tensor<64xf32>,
          tensor<4xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Kiln_StateArg<Kiln_GdnStateType, "GDN state">:$state,
                       Kiln_Activation:$input, Kiln_Activation:$decay,
                       Kiln_Activation:$beta, I64Attr:$num_k_heads,
                       DefaultValuedAttr<F32Attr, "1.0e-6f">:$qk_eps);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = [{
    $state `,` $input `,` $decay `,` $beta attr-dict `:` qualified(type($state)) `,`
    qualified(type($input)) `,` qualified(type($decay)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Kiln_GatedRmsNormOp : Kiln_Op<"gated_rms_norm", [Pure,
    AllTypesMatch<["input", "gate", "result"]>]> {
  let summary = "per head: o_h <- rms(o_h) * w * silu(z_h)";
  let description = [{
    `input` and `gate` (z) hold `heads` heads of `d` values; `weight` has `d` entries
    shared by all heads and is used as is (never zero-centred).

    ```mlir
    %y = kiln.gated_rms_norm %o, %z, %w {heads = 4 : i64, eps = 1.0e-06 : f32}
        : tensor<32xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$input, Kiln_Activation:$gate,
                       Kiln_Activation:$weight, I64Attr:$heads, F32Attr:$eps);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = [{
    $input `,` $gate `,` $weight attr-dict `:` qualified(type($input)) `,` qualified(type($weight))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Embryo: anchor attention
//===----------------------------------------------------------------------===//

def Kiln_RotaryOp : Kiln_Op<"rotary", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "partial rotary embedding of each head at a position";
  let description = [{
    For each of `heads` heads of `head_dim`, pairs `(i, i + rotary_dim/2)`,
    `i < rotary_dim/2`, rotate by angle `t * theta^(-2i/rotary_dim)`:
    `(a, b) -> (a cos - b sin, a sin + b cos)`. Dims `>= rotary_dim` pass through.
    Dory uses `rotary_dim = head_dim` (full rotary).

    ```mlir
    %qr = kiln.rotary %q, %position {heads = 6 : i64, head_dim = 16 : i64,
        rotary_dim = 8 : i64, theta = 1.0e+04 : f32} : tensor<96xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$input, Index:$position, I64Attr:$heads,
                       I64Attr:$head_dim, I64Attr:$rotary_dim, F32Attr:$theta);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$input `,` $position attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Kiln_KvRingWriteOp : Kiln_Op<"kv_ring_write", [
    AllTypesMatch<["key", "value"]>]> {
  let summary = "store a position's key and value in ring slot position mod capacity";
  let description = [{
    `k`, `v` hold `kv_heads` heads of `head_dim`. A later Dory pass at the same
    position overwrites the same slot (the seed's `dory_o1_back` step back).

    ```mlir
    kiln.kv_ring_write %kv, %k, %v, %position
        : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<32xf32>
    ```
  }];
  let arguments = (ins Kiln_StateArg<Kiln_KvRingType, "KV ring">:$ring,
                       Kiln_Activation:$key, Kiln_Activation:$value, Index:$position);
  let assemblyFormat = [{
    $ring `,` $key `,` $value `,` $position attr-dict `:` qualified(type($ring)) `,` qualified(type($key))
  }];
  let hasVerifier = 1;
}

def Kiln_RingAttentionOp : Kiln_Op<"ring_attention", [
    AllTypesMatch<["query", "query_raw", "result"]>]> {
  let summary = "bounded ring attention with sink keys, per-group windows, e^-16 floor";
  let description = [{
    Embryo's anchor attention for query head `hq` (KV head `kh = hq / (qh/kvh)`):
    keys are the `ns` sinks of `kh` (scored against the **un-rotated** query
    `query_raw`), then the last `min(t+1, W_kh)` ring keys (scored against the
    rotated `query`), `W_kh = group_windows[kh]` or the ring capacity. Score
    `= q.k / sqrt(head_dim)`; softmax where a key scoring more than `score_floor`
    below the head's maximum is dropped from sum and normaliser; `o = sum w v`.
    Operands: ring, query (rotated), query_raw, position, then optional
    `sinks(sink_k, sink_v)` each `[kv_heads, ns, head_dim]`.

    ```mlir
    %o = kiln.ring_attention %kv, %qr, %q, %position sinks(%sk, %sv
        : tensor<2x2x16xf32>, tensor<2x2x16xf32>) {num_q_heads = 6 : i64,
        group_windows = array<i64: 8, 4>}
        : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<96xf32>
    ```
  }];
  let arguments = (ins Kiln_StateReadArg<Kiln_KvRingType, "KV ring">:$ring,
                       Kiln_Activation:$query, Kiln_Activation:$query_raw,
                       Index:$position, Variadic<Kiln_Table>:$sinks,
                       I64Attr:$num_q_heads,
                       OptionalAttr<DenseI64ArrayAttr>:$group_windows,
                       DefaultValuedAttr<F32Attr, "16.0f">:$score_floor);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = [{
    $ring `,` $query `,` $query_raw `,` $position
    (`sinks` `(` $sinks^ `:` qualified(type($sinks)) `)`)? attr-dict `:` qualified(type($ring)) `,`
    qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Sink keys per KV head (0 without sinks).
    int64_t getNumSinks();
    /// The window of KV head `kvHead`: its group window, else the ring capacity.
    int64_t getWindowForKvHead(int64_t kvHead);
  }];
}

//===----------------------------------------------------------------------===//
// Embryo: MoE router and head
//===----------------------------------------------------------------------===//

def Kiln_ResonanceRouteOp : Kiln_Op<"resonance_route", [Pure,
    AttrSizedOperandSegments]> {
  let summary = "pick the expert whose subspace best explains x (growth shells mask)";
  let description = [{
    `err_e = |x - mu_e|^2 - sum_c (U_e,c . (x - mu_e))^2`, `score_e = b_e - err_e`;
    with shells, `err_e > shell_e` makes `score_e = -inf`. Returns the index of the
    top score; the lower index wins a tie; when every expert is masked, expert 0
    (as the seed). Operands: x `[H]`, centres `[E, H]`, bias `[E]`, then optional
    `basis([E, R, H])` and `shells([E])`.

    ```mlir
    %e = kiln.resonance_route %x2, %mu, %b basis(%u : tensor<3x2x64xf32>)
        shells(%sh : tensor<3xf32>) : tensor<64xf32>, tensor<3x64xf32>, tensor<3xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$input, Kiln_Table:$centres,
                       Kiln_Activation:$bias, Optional<Kiln_Table>:$basis,
                       Optional<Kiln_Activation>:$shells);
  let results = (outs Index:$expert);
  let assemblyFormat = [{
    $input `,` $centres `,` $bias (`basis` `(` $basis^ `:` qualified(type($basis)) `)`)?
    (`shells` `(` $shells^ `:` qualified(type($shells)) `)`)? attr-dict `:` qualified(type($input)) `,`
    qualified(type($centres)) `,` qualified(type($bias))
  }];
  let hasVerifier = 1;
}

def Kiln_ExpertSelectOp : Kiln_Op<"expert_select", [Pure]> {
  let summary = "the weight of the routed expert: candidates[expert]";
  let description = [{
    All candidates have one type. `expert` comes from `kiln.resonance_route` and is
    below the candidate count by construction.

    ```mlir
    %wg = kiln.expert_select %e [%g0, %g1] : !kiln.weight<[96, 64], q8_2f>,
        !kiln.weight<[96, 64], q8_2f> -> !kiln.weight<[96, 64], q8_2f>
    ```
  }];
  let arguments = (ins Index:$expert, Variadic<Kiln_Matrix>:$candidates);
  let results = (outs Kiln_Matrix:$result);
  let assemblyFormat = [{
    $expert `[` $candidates `]` attr-dict `:` qualified(type($candidates)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Kiln_TopPGateOp : Kiln_Op<"top_p_gate", [Pure]> {
  let summary = "the cluster log-prob gate of the hierarchical head from top_p";
  let description = [{
    Decision (docs/dialect.md): sort the cluster log-probs `lc` by descending
    probability, admit clusters until their mass reaches `top_p`; the gate is the
    log-prob of the last admitted cluster (ties with it stay open). `top_p >= 1`
    gives `-inf` (every cluster open). Computed on the device, so the head needs no
    host round trip.

    ```mlir
    %gate = kiln.top_p_gate %lc, %top_p : tensor<16xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$cluster_logprobs, F32:$top_p);
  let results = (outs F32:$gate);
  let assemblyFormat = "$cluster_logprobs `,` $top_p attr-dict `:` qualified(type($cluster_logprobs))";
}

def Kiln_ClusteredHeadOp : Kiln_Op<"clustered_head", [Pure]> {
  let summary = "hierarchical head: per open cluster, lc[c] + r_tok - logsumexp_c(r)";
  let description = [{
    Cluster `c` owns tokens `c*CS ... c*CS+CS-1` and their rows of `rows` (`[V, H]`).
    For `lc[c] >= gate`: `logp(tok) = lc[c] + r_tok - logsumexp_c(r)`, `r = rows x`;
    a cluster below the gate reads none of its rows and its tokens get -1e30
    (the seed's DROPPED). Operands: rows, x, cluster log-probs, gate.

    ```mlir
    %logp = kiln.clustered_head %rows, %x, %lc, %gate {num_clusters = 16 : i64,
        cluster_size = 16 : i64} : !kiln.weight<[256, 64], q8_2f>, tensor<64xf32>,
        tensor<16xf32> -> tensor<256xf32>
    ```
  }];
  let arguments = (ins Kiln_Matrix:$rows, Kiln_Activation:$input,
                       Kiln_Activation:$cluster_logprobs, F32:$gate,
                       I64Attr:$num_clusters, I64Attr:$cluster_size);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = [{
    $rows `,` $input `,` $cluster_logprobs `,` $gate attr-dict `:` qualified(type($rows)) `,`
    qualified(type($input)) `,` qualified(type($cluster_logprobs)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Dory
//===----------------------------------------------------------------------===//

def Kiln_QkPrepOp : Kiln_Op<"qk_prep", [Pure,
    AllTypesMatch<["query", "query_out"]>, AllTypesMatch<["key", "key_out"]>]> {
  let summary = "Dory q/k prep: q <- unit(q) * s_qk per head, k <- unit(k)";
  let description = [{
    `unit(x) = x / sqrt(|x|^2 + eps)` per head of `head_dim`. Operands: q
    (`num_q_heads*head_dim`), k (`num_kv_heads*head_dim`), s_qk `[num_q_heads,
    head_dim]`. Rotary comes before (a separate `kiln.rotary`).

    ```mlir
    %qn, %kn = kiln.qk_prep %qr, %kr, %sqk {num_q_heads = 4 : i64,
        num_kv_heads = 2 : i64, head_dim = 16 : i64, eps = 1.0e-06 : f32}
        : tensor<64xf32>, tensor<32xf32>, tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$query, Kiln_Activation:$key,
                       Kiln_Table:$qk_scale, I64Attr:$num_q_heads,
                       I64Attr:$num_kv_heads, I64Attr:$head_dim, F32Attr:$eps);
  let results = (outs Kiln_Activation:$query_out, Kiln_Activation:$key_out);
  let assemblyFormat = [{
    $query `,` $key `,` $qk_scale attr-dict `:` qualified(type($query)) `,` qualified(type($key)) `,`
    qualified(type($qk_scale))
  }];
  let hasVerifier = 1;
}

def Kiln_WindowAttentionOp : Kiln_Op<"window_attention", [
    AllTypesMatch<["query", "result"]>, AttrSizedOperandSegments]> {
  let summary = "Dory sliding-window attention with sink keys, optionally with the Nystrom far field";
  let description = [{
    Query head `hq` reads KV head `hq / (qh/kvh)`: first its `ns` sink keys
    (optional `sinks(sink_k, sink_v)`, each `[kv_heads, ns, head_dim]`; no
    position, so never evicted and not rotated), then keys
    `max(0, t+1-window) ... t` of the ring; every score is `q.k * scale`
    against the same (prepared) query. Without a far field:
    `o = softmax(scores) . v` over sinks and window. With `far(%ff)` (see
    `kiln.far_field_push`), per query
    head: `e_a = exp(q.l_a*scale - f)` (f = max), `u_b = sum_a e_a M_ab` (clamped at
    0 when `rectify`), `gain_b = u_b exp(f + z_b - c)` with `c` the common exponent
    shared with the near scores (sinks included), and
    `o = (sum_near e^(s-c) v + sum_b gain_b theta_b) / (sum_near e^(s-c) + sum_b gain_b n_b)`.
    The output gate is the separate `kiln.output_gate`.

    ```mlir
    %o = kiln.window_attention %kv, %qn, %position sinks(%sk, %sv
        : tensor<2x3x16xf32>, tensor<2x3x16xf32>) far(%ff
        : !kiln.far_field<q_heads = 4, kv_heads = 2, landmarks = 4, head_dim = 16>)
        {num_q_heads = 4 : i64, window = 8 : i64, scale = 4.0 : f32, rectify}
        : !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Kiln_StateReadArg<Kiln_KvRingType, "KV ring">:$ring,
                       Kiln_Activation:$query, Index:$position,
                       Variadic<Kiln_Table>:$sinks,
                       Kiln_StateReadArg<Optional<Kiln_FarFieldType>, "far field">:$far,
                       I64Attr:$num_q_heads, I64Attr:$window, F32Attr:$scale,
                       UnitAttr:$rectify);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = [{
    $ring `,` $query `,` $position
    (`sinks` `(` $sinks^ `:` qualified(type($sinks)) `)`)?
    (`far` `(` $far^ `:` qualified(type($far)) `)`)? attr-dict
    `:` qualified(type($ring)) `,` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Sink keys per KV head (0 without sinks).
    int64_t getNumSinks();
  }];
}

def Kiln_OutputGateOp : Kiln_Op<"output_gate", [Pure, SameOperandsAndResultType]> {
  let summary = "Dory's sigmoid output gate: o * sigmoid(g * s_g)";
  let description = [{
    Operands: attention output `o`, gate projection `g` of the block input, the
    learned `s_g` (`layers.{i}.attn.s_g`).

    ```mlir
    %og = kiln.output_gate %o, %g, %sg : tensor<64xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$input, Kiln_Activation:$gate,
                       Kiln_Activation:$gate_scale);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$input `,` $gate `,` $gate_scale attr-dict `:` qualified(type($result))";
}

def Kiln_SlerpResidualOp : Kiln_Op<"slerp_residual", [Pure,
    SameOperandsAndResultType]> {
  let summary = "Dory residual: h <- unit(unit(h) + alpha * (unit(o) - unit(h)))";
  let description = [{
    Operands: residual `h`, update `o`, per-dim step `alpha`
    (`layers.{i}.alpha_attn` or `.alpha_mlp`).

    ```mlir
    %h2 = kiln.slerp_residual %h, %o, %alpha {eps = 1.0e-06 : f32} : tensor<64xf32>
    ```
  }];
  let arguments = (ins Kiln_Activation:$input, Kiln_Activation:$update,
                       Kiln_Activation:$alpha, F32Attr:$eps);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$input `,` $update `,` $alpha attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Kiln_FarFieldCaptureOp : Kiln_Op<"far_field_capture"> {
  let summary = "seal a prompt query as a landmark every `stride` positions";
  let description = [{
    When `position mod stride == 0` and fewer than `landmarks` are held, the
    (prepped) query of the first query head of each KV head's group becomes that
    KV head's next landmark, and M (per query head) is rebuilt as the pseudo-inverse
    of `exp(l_a . l_b * scale)` over the held landmarks (the seed's `dory_qcopy`).
    With fewer landmarks than `landmarks`, the missing ones have zero gain. A
    later loop pass at a captured position replaces that landmark with its own
    query, as the ring keeps the last pass's keys.

    ```mlir
    kiln.far_field_capture %ff, %qn, %position {stride = 8 : i64, scale = 4.0 : f32}
        : !kiln.far_field<q_heads = 4, kv_heads = 2, landmarks = 4, head_dim = 16>,
          tensor<64xf32>
    ```
  }];
  let arguments = (ins Kiln_StateArg<Kiln_FarFieldType, "far field">:$far,
                       Kiln_Activation:$query, Index:$position,
                       DefaultValuedAttr<I64Attr, "8">:$stride, F32Attr:$scale);
  let assemblyFormat = [{
    $far `,` $query `,` $position attr-dict `:` qualified(type($far)) `,` qualified(type($query))
  }];
  let hasVerifier = 1;
}

def Kiln_FarFieldPushOp : Kiln_Op<"far_field_push"> {
  let summary = "fold the key/value leaving the window into the landmark sums";
  let description = [{
    At position `t >= window`, key `j = t - window` leaves the window: read its key
    and value from ring slot `j mod capacity` (so this op must come before the
    step's `kiln.kv_ring_write` when capacity == window) and, per query head and
    landmark b, with `s = l_b . k_j * scale`: `z' = max(z_b, s)`,
    `n_b <- n_b e^(z_b - z') + e^(s - z')`, `theta_b <- theta_b e^(z_b - z') + e^(s - z') v_j`,
    `z_b <- z'`. Nothing happens for `t < window`. A push is idempotent per
    position: a later loop pass at the same position folds nothing again (the
    state records the last position folded).

    ```mlir
    kiln.far_field_push %ff, %kv, %position {window = 8 : i64, scale = 4.0 : f32}
        : !kiln.far_field<q_heads = 4, kv_heads = 2, landmarks = 4, head_dim = 16>,
          !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
    ```
  }];
  let arguments = (ins Kiln_StateArg<Kiln_FarFieldType, "far field">:$far,
                       Kiln_StateReadArg<Kiln_KvRingType, "KV ring">:$ring,
                       Index:$position, I64Attr:$window, F32Attr:$scale);
  let assemblyFormat = [{
    $far `,` $ring `,` $position attr-dict `:` qualified(type($far)) `,` qualified(type($ring))
  }];
  let hasVerifier = 1;
}

def Kiln_LoopOp : Kiln_Op<"loop", [RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "Dory's looped block: `passes` passes with an optional early exit";
  let description = [{
    `body` (block args: h, pass index) is one pass of the layers and yields the new
    h; `readout` (block arg: h) yields the read-out max probability (f32). The
    edges are `kiln.mix` modes on `state`:
    ```
    h = mix enter(h)
    for p in 0 .. passes-1:
      h = body(h, p)
      if p == passes-1: h = mix leave(h); break
      if exit_threshold:
        h = mix exit_readout(h)
        if readout(h) >= exit_threshold: break
        h = mix resume(h)
      else: h = mix between(h)
    result = h
    ```
    `readout` is present exactly when `exit_threshold` is. `--kiln-expand-loop`
    makes these edges explicit.

    ```mlir
    %out = kiln.loop %h, %ls passes(2) exit_threshold(9.0e-01)
        : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
    ^bb0(%x: tensor<64xf32>, %pass: index):
      ...
      kiln.yield %x1 : tensor<64xf32>
    } readout {
    ^bb0(%x: tensor<64xf32>):
      ...
      kiln.yield %p : f32
    }
    ```
  }];
  let arguments = (ins Kiln_Activation:$input,
                       Kiln_StateArg<Kiln_LoopStateType, "loop state">:$state,
                       I64Attr:$passes, OptionalAttr<F32Attr>:$exit_threshold);
  let results = (outs Kiln_Activation:$result);
  let regions = (region SizedRegion<1>:$body, AnyRegion:$readout);
  let assemblyFormat = [{
    $input `,` $state `passes` `(` $passes `)`
    (`exit_threshold` `(` $exit_threshold^ `)`)? attr-dict `:` qualified(type($input)) `,`
    qualified(type($state)) `body` $body (`readout` $readout^)?
  }];
  let hasRegionVerifier = 1;
}

def Kiln_MixOp : Kiln_Op<"mix", [AllTypesMatch<["input", "result"]>]> {
  let summary = "an edge of the looped block (seed `dory_mix`), on the in/st rows";
  let description = [{
    - `enter`: `in = st = h`, `h = unit(h)` (the seed computes unit(h + h));
    - `between`: `st = unit(h)`, `h = unit(st + in)`;
    - `leave`: `h = unit(h)`;
    - `exit_readout`: `h = st = unit(h)` (the read-out then reads h);
    - `resume`: `h = unit(st + in)`.
    `unit(x) = x / sqrt(|x|^2 + eps)`.

    ```mlir
    %h1 = kiln.mix between %ls, %h {eps = 1.0e-06 : f32}
        : !kiln.loop_state<hidden = 64>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Kiln_MixMode:$mode,
                       Kiln_StateArg<Kiln_LoopStateType, "loop state">:$state,
                       Kiln_Activation:$input, F32Attr:$eps);
  let results = (outs Kiln_Activation:$result);
  let assemblyFormat = "$mode $state `,` $input attr-dict `:` qualified(type($state)) `,` qualified(type($input))";
  let hasVerifier = 1;
}

def Kiln_YieldOp : Kiln_Op<"yield", [Pure, HasParent<"LoopOp">, ReturnLike,
    Terminator]> {
  let summary = "ends a region of kiln.loop";
  let description = [{
    ```mlir
    kiln.yield %h : tensor<64xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` qualified(type($values)))? attr-dict";
}

#endif // KILN_DIALECT_KILN_IR_KILNOPS_TD
