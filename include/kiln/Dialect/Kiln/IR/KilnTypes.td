//===- KilnTypes.td - kiln weight and state types ----------*- tablegen -*-===//

#ifndef KILN_DIALECT_KILN_IR_KILNTYPES_TD
#define KILN_DIALECT_KILN_IR_KILNTYPES_TD

include "kiln/Dialect/Kiln/IR/KilnDialect.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "mlir/IR/AttrTypeBase.td"

class Kiln_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Kiln_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Kiln_WeightType : Kiln_Type<"Weight", "weight"> {
  let summary = "a matrix weight with its storage format";
  let description = [{
    A read-only matrix of `rows x cols` (row-major; `y = W x` has `rows` outputs) kept
    on the device in its file format: `f16` (IEEE half) or `q8_2f` (int8 codes with a
    per-row and a per-column f32 scale, `W[r][c] = s[r] * q[r][c] * t[c]`).

    ```mlir
    !kiln.weight<[96, 64], q8_2f>
    ```
  }];
  let parameters = (ins "int64_t":$rows, "int64_t":$cols,
                        EnumParameter<Kiln_WeightFormat>:$format);
  let assemblyFormat = "`<` `[` $rows `,` $cols `]` `,` $format `>`";
  let genVerifyDecl = 1;
}

def Kiln_KvRingType : Kiln_Type<"KvRing", "kv_ring"> {
  let summary = "a ring of the last `capacity` keys and values per KV head";
  let description = [{
    Persistent attention state: for each of `kv_heads` heads, `capacity` slots of a
    key and a value of `head_dim` f32 each. The key and value of position `t` live in
    slot `t mod capacity`.

    ```mlir
    !kiln.kv_ring<kv_heads = 2, capacity = 8, head_dim = 16>
    ```
  }];
  let parameters = (ins "int64_t":$kv_heads, "int64_t":$capacity, "int64_t":$head_dim);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Kiln_GdnStateType : Kiln_Type<"GdnState", "gdn_state"> {
  let summary = "the gated-delta-rule state S, k_dim x v_dim per value head";
  let description = [{
    ```mlir
    !kiln.gdn_state<v_heads = 4, k_dim = 8, v_dim = 8>
    ```
  }];
  let parameters = (ins "int64_t":$v_heads, "int64_t":$k_dim, "int64_t":$v_dim);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Kiln_ConvRingType : Kiln_Type<"ConvRing", "conv_ring"> {
  let summary = "the last taps-1 inputs of a depthwise causal conv, per channel";
  let description = [{
    ```mlir
    !kiln.conv_ring<channels = 64, taps = 4>
    ```
  }];
  let parameters = (ins "int64_t":$channels, "int64_t":$taps);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Kiln_FarFieldType : Kiln_Type<"FarField", "far_field"> {
  let summary = "Nystrom far-field accumulators of one Dory layer";
  let description = [{
    Per KV head: `landmarks` landmark keys of `head_dim`; per query head: the
    `landmarks x landmarks` matrix M and, per landmark, the running log-scale z, the
    mass n and the value sum theta (`head_dim`). See `kiln.far_field_push`.

    ```mlir
    !kiln.far_field<q_heads = 4, kv_heads = 2, landmarks = 4, head_dim = 16>
    ```
  }];
  let parameters = (ins "int64_t":$q_heads, "int64_t":$kv_heads,
                        "int64_t":$landmarks, "int64_t":$head_dim);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Kiln_LoopStateType : Kiln_Type<"LoopState", "loop_state"> {
  let summary = "the `in` and `st` rows of Dory's looped block";
  let description = [{
    ```mlir
    !kiln.loop_state<hidden = 64>
    ```
  }];
  let parameters = (ins "int64_t":$hidden);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

// Operand/result constraints.
def Kiln_Activation : Type<CPred<"::kiln::graph::isActivationType($_self)">,
    "static 1-D tensor of f32", "::mlir::RankedTensorType">;
def Kiln_Table : Type<CPred<"::kiln::graph::isTableType($_self)">,
    "static tensor of f32", "::mlir::RankedTensorType">;
def Kiln_Matrix : Type<CPred<"::kiln::graph::isMatrixType($_self)">,
    "!kiln.weight or static 2-D tensor of f32">;
def Kiln_StateType : Type<CPred<"::kiln::graph::isStateType($_self)">,
    "kiln state type">;

#endif // KILN_DIALECT_KILN_IR_KILNTYPES_TD
