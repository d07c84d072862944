//===- Passes.td - graph-level passes on the kiln dialect ---*- tablegen -*-===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnVerifyModel : Pass<"kiln-verify-model", "::kiln::graph::ModelOp"> {
  let summary = "Cross-op checks of a model against its config and docs/weights.md";
  let description = [{
    Checks what no single op can: every `kiln.weight_decl` is a name of
    docs/weights.md for the model's family, with the storage kind (f16 matrix,
    matrix, f32 tensor) and the dims that follow from the model attributes
    (hidden H, intermediate I, vocab V); every declared weight and state is used
    (unless `allow-unused`); every op's `eps` and `zero_centered` agree with the
    model's; the embedding yields H values; and only the family's ops appear.
    The IR is left unchanged; a broken rule fails the pass with an error at the
    offending op.

    Before and after (unchanged when valid):
    ```mlir
    kiln.model @m embryo attributes {hidden = 8 : i64, intermediate = 16 : i64,
        vocab = 4 : i64, eps = 1.0e-06 : f32} {
      kiln.weight_decl @embed : !kiln.weight<[4, 8], f16>
      ...
    }
    ```
    With `kiln.weight_decl @embed : !kiln.weight<[4, 6], f16>` the pass reports
    `weight @embed has shape [4, 6], expected [4, 8] (embed is [V, H])`.
  }];
  let options = [
    Option<"allowUnused", "allow-unused", "bool", /*default=*/"false",
           "Accept weight and state declarations that no op uses">
  ];
}

def KilnExpandLoop : Pass<"kiln-expand-loop", "::kiln::graph::ModelOp"> {
  let summary = "Unroll kiln.loop into its passes with explicit kiln.mix edges";
  let description = [{
    Replaces each `kiln.loop` by `passes` copies of its body joined by the edges of
    its semantics: `kiln.mix enter` first, `between` (no exit threshold) or
    `exit_readout` + the readout + an `scf.if` on `readout >= exit_threshold`
    whose else branch resumes (`kiln.mix resume`) with the remaining passes, and
    `leave` after the last pass. The pass index block argument becomes an
    `arith.constant`. Mix edges use the model's eps.

    Before:
    ```mlir
    %y = kiln.loop %h, %ls passes(2) : tensor<8xf32>, !kiln.loop_state<hidden = 8>
      body { ^bb0(%x: tensor<8xf32>, %p: index): ... kiln.yield %x1 : tensor<8xf32> }
    ```
    After:
    ```mlir
    %h0 = kiln.mix enter %ls, %h ...
    ... pass 0 ...
    %h1 = kiln.mix between %ls, %x1 ...
    ... pass 1 ...
    %y = kiln.mix leave %ls, %x2 ...
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
