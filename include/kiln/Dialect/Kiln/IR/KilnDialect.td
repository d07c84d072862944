//===- KilnDialect.td - the kiln model-graph dialect -------*- tablegen -*-===//
//
// The `kiln` dialect describes one decode step of a small LM as a graph: one op
// per step of docs/MODELS.md, typed weights that say their storage format, and
// persistent state (rings, recurrent states, far field, loop state) as explicit
// handles. Later passes regroup these fine ops into kernel-sized stages.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNDIALECT_TD
#define KILN_DIALECT_KILN_IR_KILNDIALECT_TD

include "mlir/IR/OpBase.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let summary = "Model-graph dialect for Kiln's decode-time LMs (Embryo and Dory)";
  let description = [{
    A `kiln.model` holds the model's configuration, the declarations of its weights
    (`kiln.weight_decl`) and persistent state (`kiln.state_decl`), and one `kiln.step`
    region that maps a token and its position to log-probabilities over the
    vocabulary. Inside the step, every computation of docs/MODELS.md is one op;
    activations are static 1-D `tensor<Nxf32>` values, matrices are
    `!kiln.weight<[rows, cols], f16|q8_2f>` values and state is reached through
    handles whose ops declare read/write effects on the `kiln.state` resource.
  }];
  let cppNamespace = "::kiln::graph";
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits>;

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_TD
