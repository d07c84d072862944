//===- ConvertKilnToStage.cpp - --convert-kiln-to-stage -------------------===//

#include "kiln/Conversion/KilnToStage/KilnToStage.h"

#include "Lowering.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Stage/IR/StageDialect.h"
#include "kiln/Dialect/Stage/IR/StageModule.h"

namespace kiln {
#define GEN_PASS_DEF_CONVERTKILNTOSTAGE
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {

/// Fills the module attributes of docs/pipeline.md that an imported module
/// already has (kiln-compile sets them); a hand-written module
/// gets them from its model: the weight format of its matrices, the
/// config's default max_position and no config text.
static void fillModuleAttributes(ModuleOp module, kiln::graph::ModelOp model) {
  Builder b(module.getContext());
  Operation *op = module.getOperation();
  if (!op->hasAttr("kiln.family"))
    op->setAttr("kiln.family",
                b.getStringAttr(kiln::graph::stringifyFamily(model.getFamily())));
  if (!op->hasAttr("kiln.vocab_size"))
    op->setAttr("kiln.vocab_size",
                b.getI64IntegerAttr(static_cast<int64_t>(model.getVocab())));
  if (!op->hasAttr("kiln.max_position"))
    op->setAttr("kiln.max_position", b.getI64IntegerAttr(4096));
  if (!op->hasAttr("kiln.weight_format")) {
    std::string format = "f16";
    model.walk([&](kiln::graph::WeightDeclOp decl) {
      if (auto type = dyn_cast<kiln::graph::WeightType>(decl.getType()))
        if (type.getFormat() == kiln::graph::WeightFormat::q8_2f)
          format = "q8_2f";
    });
    op->setAttr("kiln.weight_format", b.getStringAttr(format));
  }
  if (!op->hasAttr("kiln.config"))
    op->setAttr("kiln.config", b.getStringAttr(""));
}

LogicalResult convertKilnToStage(ModuleOp module, int64_t prefillRows) {
  SmallVector<kiln::graph::ModelOp> models(
      module.getOps<kiln::graph::ModelOp>());
  if (models.size() != 1)
    return module.emitError("convert-kiln-to-stage needs exactly one "
                            "kiln.model in the module, found ")
           << models.size();
  if (module.lookupSymbol("decode"))
    return module.emitError("convert-kiln-to-stage: the module already has "
                            "a symbol @decode");
  kiln::graph::ModelOp model = models.front();
  if (prefillRows < 0 || prefillRows == 1 || prefillRows > stage::kMaxProgramRows)
    return module.emitError("convert-kiln-to-stage: prefill-rows must be 0 (no @prefill) "
                            "or in [2, ")
           << stage::kMaxProgramRows << "], got " << prefillRows;
  if (prefillRows > 1 && model.getFamily() != kiln::graph::Family::embryo)
    return module.emitError("convert-kiln-to-stage: a multi-row @prefill is built for "
                            "Embryo only; Dory's prompts go one row a call (leave "
                            "prefill-rows at 0)");
  if (prefillRows > 1 && module.lookupSymbol("prefill"))
    return module.emitError("convert-kiln-to-stage: the module already has "
                            "a symbol @prefill");
  // Both programs share the state: a ring is sized for the wider of them.
  int64_t rows = std::max<int64_t>(prefillRows, 1);
  lowering::Lowering decode(module, model, /*rows=*/1, rows);
  if (failed(decode.run()))
    return failure();
  if (prefillRows > 1) {
    lowering::Lowering prefill(module, model, prefillRows, rows);
    if (failed(prefill.run()))
      return failure();
  }
  fillModuleAttributes(module, model);
  model.erase();
  return success();
}

namespace {
struct ConvertKilnToStagePass
    : public impl::ConvertKilnToStageBase<ConvertKilnToStagePass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(convertKilnToStage(getOperation(), prefillRows)))
      signalPassFailure();
  }
};
} // namespace

} // namespace kiln
