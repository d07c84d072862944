//===- ConvertKilnToStage.cpp - --convert-kiln-to-stage -------------------===//

#include "kiln/Conversion/KilnToStage/KilnToStage.h"

#include "Lowering.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Stage/IR/StageDialect.h"

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

LogicalResult convertKilnToStage(ModuleOp module) {
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
  lowering::Lowering lowering(module, model);
  if (failed(lowering.run()))
    return failure();
  fillModuleAttributes(module, model);
  model.erase();
  return success();
}

namespace {
struct ConvertKilnToStagePass
    : public impl::ConvertKilnToStageBase<ConvertKilnToStagePass> {
  void runOnOperation() override {
    if (failed(convertKilnToStage(getOperation())))
      signalPassFailure();
  }
};
} // namespace

} // namespace kiln
