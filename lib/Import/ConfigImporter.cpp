//===- ConfigImporter.cpp - Model config -> kiln module -------------------===//

#include "kiln/Import/ConfigImporter.h"

#include "ModelBuilder.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace kiln {

OwningOpRef<ModuleOp> importModelConfig(MLIRContext &context,
                                        const io::ModelConfig &config,
                                        io::WeightFormat format,
                                        std::string *errorMessage) {
  auto fail = [&](const std::string &message) {
    if (errorMessage)
      *errorMessage = message;
    return OwningOpRef<ModuleOp>();
  };
  // The importer also takes configs built in code: check every rule first,
  // so the builders below may rely on them (heads dividing, sizes >= 1).
  if (io::Status valid = io::validateModelConfig(config); !valid)
    return fail(valid.error().message());
  context.getOrLoadDialect<kiln::graph::KilnDialect>();
  context.getOrLoadDialect<arith::ArithDialect>();

  OpBuilder top(&context);
  Location loc = NameLoc::get(top.getStringAttr(
      config.name.empty() ? io::modelFamilyName(config.family) : config.name));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  module->getOperation()->setAttr(
      kFamilyAttrName, top.getStringAttr(io::modelFamilyName(config.family)));
  module->getOperation()->setAttr(kVocabSizeAttrName,
                                  top.getI64IntegerAttr(config.vocabSize));
  module->getOperation()->setAttr(kMaxPositionAttrName,
                                  top.getI64IntegerAttr(config.maxPosition));
  module->getOperation()->setAttr(
      kWeightFormatAttrName, top.getStringAttr(io::weightFormatName(format)));
  module->getOperation()->setAttr(kConfigAttrName,
                                  top.getStringAttr(io::toJson(config, /*indent=*/-1)));

  std::string name = import::modelSymbolName(config);
  if (config.isEmbryo()) {
    import::ModelBuilder builder(*module, name, kiln::graph::Family::embryo,
                                 config, format, /*withTopP=*/true);
    import::buildEmbryoStep(builder, config);
  } else {
    import::ModelBuilder builder(*module, name, kiln::graph::Family::dory,
                                 config, format, /*withTopP=*/false);
    import::buildDoryStep(builder, config);
  }

  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (!diagnostics.empty())
        diagnostics += "\n";
      diagnostics += diag.str();
      return success();
    });
    if (failed(verify(*module)))
      return fail("import: the kiln module of '" + name +
                  "' does not verify: " + diagnostics);
  }
  return module;
}

} // namespace kiln
