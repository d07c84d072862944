//===- SyncOps.cpp - Verifier of stage.last_workgroup ---------------------===//
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
  if (!dispatch || dispatch.getFusion() != StringRef("last_workgroup"))
    return emitOpError("belongs in a stage.dispatch of fusion \"last_workgroup\"");
  return success();
}
