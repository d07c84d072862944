//===- SyncOps.cpp - Verifier of stage.last_workgroup ---------------------===//
#include "kiln/Dialect/Stage/IR/StageFusion.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "BufferRules.h"

using namespace mlir;
using namespace kiln::stage;
using namespace kiln::stage::detail;

LogicalResult LastWorkgroupOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  if (elements(getCounter()) < 1)
    return emitOpError("counter must hold at least one word");
  auto dispatch = dyn_cast_or_null<DispatchOp>(getOperation()->getParentOp());
  StringRef form = fusionFormName(FusionForm::LastWorkgroup);
  if (!dispatch || dispatch.getFusion() != form)
    return emitOpError("belongs in a stage.dispatch of fusion \"") << form << "\"";
  return success();
}
