//===- KilnAttrs.td - kiln enums --------------------------*- tablegen -*-===//
//
// Enums used by kiln types and ops. They are plain integer enums so that an op's
// assembly format prints them as bare keywords (`kiln.mix between ...`).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNATTRS_TD
#define KILN_DIALECT_KILN_IR_KILNATTRS_TD

include "mlir/IR/EnumAttr.td"

// Storage format of a matrix weight (MODELS.md "Weight formats", docs/weights.md).
def Kiln_WeightFormat : I32EnumAttr<"WeightFormat", "matrix storage format", [
    I32EnumAttrCase<"f16", 0>,
    I32EnumAttrCase<"q8_2f", 1>
  ]> {
  let cppNamespace = "::kiln::graph";
}

// Model family (docs/config.md `family`).
def Kiln_Family : I32EnumAttr<"Family", "model family", [
    I32EnumAttrCase<"embryo", 0>,
    I32EnumAttrCase<"dory", 1>
  ]> {
  let cppNamespace = "::kiln::graph";
}

// The five edges of Dory's looped block (MODELS.md "Loop edges", seed `dory_mix`).
def Kiln_MixMode : I32EnumAttr<"MixMode", "edge of the looped block", [
    I32EnumAttrCase<"enter", 0>,
    I32EnumAttrCase<"between", 1>,
    I32EnumAttrCase<"leave", 2>,
    I32EnumAttrCase<"exit_readout", 3>,
    I32EnumAttrCase<"resume", 4>
  ]> {
  let cppNamespace = "::kiln::graph";
}

#endif // KILN_DIALECT_KILN_IR_KILNATTRS_TD
