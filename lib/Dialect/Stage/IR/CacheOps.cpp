//===- CacheOps.cpp - Verifier of stage.prefetch --------------------------===//
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "BufferRules.h"

using namespace mlir;
using namespace kiln::stage;
using namespace kiln::stage::detail;

LogicalResult PrefetchOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  int64_t total = elements(getSource());
  int64_t first = getFirstGroup(), count = getGroups();
  if (first < 0 || count < 1 || first > total || count > total - first)
    return emitOpError("groups [")
           << first << ", " << first << " + " << count << ") must be a non-empty range within "
           << "the source's " << total << " groups";
  return success();
}
