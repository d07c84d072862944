//===- StageAttrs.td - The stage module's contract attributes -*- tablegen -*-===//
//
// What the plan writer needs beyond the stages (docs/pipeline.md): each
// buffer argument's placement (`stage.buffer`) and the func's slot table,
// readback, params fields, device flags and sampled token (`stage.slots`,
// `stage.readback`, `stage.params`, `stage.device_flags`, `stage.sampled`).
// convert-kiln-to-stage writes them, kiln-plan-memory fills the slots, the
// Stage transforms and the plan writer read them; the Stage dialect verifies
// them (StageDialect.cpp). Names the plan file defines (dtypes, layouts,
// readback values, param rules) stay strings here: the plan writer checks
// them against the plan schema, which the dialect does not depend on.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_STAGE_IR_STAGEATTRS_TD
#define KILN_DIALECT_STAGE_IR_STAGEATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Stage_BufferKind : I32EnumAttr<"BufferKind", "what a logical buffer holds", [
    I32EnumAttrCase<"Weight", 0, "weight">,
    I32EnumAttrCase<"State", 1, "state">,
    I32EnumAttrCase<"Scratch", 2, "scratch">,
    I32EnumAttrCase<"Params", 3, "params">,
    I32EnumAttrCase<"Readback", 4, "readback">]> {
  let cppNamespace = "::kiln::stage";
  let genSpecializedAttr = 0;
}

/// A list in square brackets (possibly empty), so that it can sit among a
/// struct's comma-separated fields.
class Stage_ListParameter<string element, string desc>
    : ArrayRefParameter<element, desc> {
  let parser = "::kiln::stage::parseBracketedList<" # element # ">($_parser)";
  let printer = "::kiln::stage::printBracketedList($_printer, $_self)";
}
class Stage_OptionalListParameter<string element, string desc>
    : OptionalArrayRefParameter<element, desc> {
  let parser = "::kiln::stage::parseBracketedList<" # element # ">($_parser)";
  let printer = "::kiln::stage::printBracketedList($_printer, $_self)";
}

class Stage_Attr<string name, string attrMnemonic>
    : AttrDef<Stage_Dialect, name> {
  let mnemonic = attrMnemonic;
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Stage_WeightTensorAttr : Stage_Attr<"WeightTensor", "tensor"> {
  let summary = "where one safetensors tensor lands in a weight buffer";
  let description = [{
    `name` is the tensor's safetensors name, `dtype` its element type there
    (F32, F16, I8), `shape` its dimensions, `layout` the plan's WeightLayout
    that places it, `byte_offset` where it starts in the buffer (a stacked
    expert's tensors follow one another) and `row_pitch_bytes` the distance
    between its rows once placed (0: not a row layout).
  }];
  let parameters = (ins
    StringRefParameter<"safetensors name">:$name,
    StringRefParameter<"element type in the weights file">:$dtype,
    Stage_ListParameter<"int64_t", "dimensions">:$shape,
    StringRefParameter<"the plan's WeightLayout">:$layout,
    "int64_t":$byte_offset,
    DefaultValuedParameter<"int64_t", "0">:$row_pitch_bytes
  );
}

def Stage_BufferAttr : Stage_Attr<"Buffer", "buffer"> {
  let summary = "a buffer argument's kind, name and placement";
  let description = [{
    On each argument of a stage program (`stage.buffer`): `kind`, a `name`
    for diagnostics and the plan, the physical `slot` it lives in (absent
    until kiln-plan-memory places it) at `byte_offset`, its `byte_size`, and
    for a weight the `tensors` placed in it. In a multi-row program
    (`@prefill`, `kiln.max_rows` R) an activation holds one row per call row:
    `rows` = R copies of its type, row after row (`byte_size` counts them
    all); the stages see one row's type (docs/pipeline.md, "Rows").
  }];
  let parameters = (ins
    "::kiln::stage::BufferKind":$kind,
    StringRefParameter<"buffer name">:$name,
    OptionalParameter<"std::optional<int64_t>">:$slot,
    DefaultValuedParameter<"int64_t", "0">:$byte_offset,
    "int64_t":$byte_size,
    Stage_OptionalListParameter<"::kiln::stage::WeightTensorAttr", "tensors placed in it">:$tensors,
    DefaultValuedParameter<"int64_t", "1">:$rows
  );
  let extraClassDeclaration = [{
    /// The same buffer placed at `slot` (std::nullopt: unplaced) and
    /// `byteOffset`.
    BufferAttr withPlacement(std::optional<int64_t> slot, int64_t byteOffset) const {
      return get(getContext(), getKind(), getName(), slot, byteOffset, getByteSize(),
                 getTensors(), getRows());
    }
  }];
}

def Stage_SlotAttr : Stage_Attr<"Slot", "slot"> {
  let summary = "one physical buffer of the memory plan";
  let description = [{
    An entry of a program's `stage.slots` table (kiln-plan-memory): the slot
    index, the kind of the buffers it holds and its size in bytes.
  }];
  let parameters = (ins
    "int64_t":$slot,
    "::kiln::stage::BufferKind":$kind,
    "int64_t":$byte_size
  );
}

def Stage_ReadbackAttr : Stage_Attr<"Readback", "readback"> {
  let summary = "what the host reads after a step";
  let description = [{
    `count` f32 values at `byte_offset` of argument `arg`; `values` names
    what they are (the plan's ReadbackValues: LogProbs or Logits).
  }];
  let parameters = (ins
    "int64_t":$arg,
    DefaultValuedParameter<"int64_t", "0">:$byte_offset,
    "int64_t":$count,
    StringRefParameter<"the plan's ReadbackValues", "\"\"">:$values
  );
}

def Stage_ParamFieldAttr : Stage_Attr<"ParamField", "param"> {
  let summary = "a params word the host writes before a step";
  let description = [{
    Field `name` at params word `word`, written by the plan's ParamRule
    `rule`; `n` (a Tokens field's length), `row` and a Constant's `value`
    where the rule needs them.
  }];
  let parameters = (ins
    StringRefParameter<"field name">:$name,
    "int64_t":$word,
    StringRefParameter<"the plan's ParamRule">:$rule,
    OptionalParameter<"std::optional<int64_t>">:$n,
    OptionalParameter<"std::optional<int64_t>">:$row,
    OptionalParameter<"::mlir::Attribute">:$value
  );
}

def Stage_DeviceFlagAttr : Stage_Attr<"DeviceFlag", "device_flag"> {
  let summary = "a word the kernels set and the host resets";
  let description = [{
    Flag `name` (early_exit) at `byte_offset` of argument `arg`, reset to
    `reset_value` before each step.
  }];
  let parameters = (ins
    StringRefParameter<"flag name">:$name,
    "int64_t":$arg,
    DefaultValuedParameter<"int64_t", "0">:$byte_offset,
    DefaultValuedParameter<"int64_t", "0">:$reset_value
  );
}

def Stage_SampledAttr : Stage_Attr<"Sampled", "sampled"> {
  let summary = "where stage.sample leaves the step's token";
  let description = [{
    The pick and its log-probability at `byte_offset` of state argument
    `arg`; `draws` when it also draws at the session's temperature and
    top-p (params words 3-5), `stop_flag` when a continue word follows them
    (params word 6, the stop token).
  }];
  let parameters = (ins
    "int64_t":$arg,
    DefaultValuedParameter<"int64_t", "0">:$byte_offset,
    DefaultValuedParameter<"bool", "false">:$draws,
    DefaultValuedParameter<"bool", "false">:$stop_flag
  );
}

#endif // KILN_DIALECT_STAGE_IR_STAGEATTRS_TD
