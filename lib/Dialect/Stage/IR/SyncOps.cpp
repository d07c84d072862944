//===- SyncOps.cpp - Verifiers of stage.last_workgroup and key_blocks -----===//
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

int64_t KeyBlocksOp::getNumBlocks() {
  return cast<MemRefType>(getPartials().getType()).getDimSize(1);
}

LogicalResult KeyBlocksOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  if (getNumBlocks() < 1)
    return emitOpError("partials must hold at least one block a head");
  if (getNumBlocks() > kMaxBlocks)
    return emitOpError("partials hold ")
           << getNumBlocks() << " blocks a head, more than the " << kMaxBlocks
           << " the combine holds in workgroup memory: raise block_keys";
  int64_t blockKeys = static_cast<int64_t>(getBlockKeys());
  if (blockKeys < 1 || blockKeys > kMaxBlockKeys)
    return emitOpError("block_keys must be in [1, ") << kMaxBlockKeys << "], got " << blockKeys;
  if (cast<MemRefType>(getPartials().getType()).getDimSize(2) <= kHeaderFloats)
    return emitOpError("partials must hold ")
           << kHeaderFloats << " header floats and a value sum per head dim";
  auto dispatch = dyn_cast_or_null<DispatchOp>(getOperation()->getParentOp());
  StringRef form = fusionFormName(FusionForm::SplitKeys);
  if (!dispatch || dispatch.getFusion() != form)
    return emitOpError("belongs in a stage.dispatch of fusion \"") << form << "\"";
  return success();
}
