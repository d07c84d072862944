//===- AttentionOps.cpp - Verifiers of key_scores and attention -----------===//
//
// stage.key_scores and the attention stages that read its scores walk one
// head's keys in the same order (sinks, then the ring newest first); the
// rules both kernels rely on are checked here, by name.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "BufferRules.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace kiln::stage;
using namespace kiln::stage::detail;

namespace {

/// group_windows: one per KV head, each in [1, cap].
LogicalResult verifyGroupWindows(Operation *op, std::optional<ArrayRef<int64_t>> windows,
                                 int64_t kvh, int64_t cap) {
  if (!windows)
    return success();
  if (static_cast<int64_t>(windows->size()) != kvh)
    return op->emitOpError("group_windows has ")
           << windows->size() << " entries, expected one per KV head (" << kvh << ")";
  for (int64_t w : *windows)
    if (w < 1 || w > cap)
      return op->emitOpError("each group window must be in [1, ")
             << cap << "] (the ring), got " << w;
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// key_scores
//===----------------------------------------------------------------------===//

int64_t KeyScoresOp::getNumSinks() { return getSinkK() ? dim(getSinkK(), 1) : 0; }

int64_t KeyScoresOp::getWindowOf(int64_t kvHead) {
  if (auto windows = getGroupWindows())
    return (*windows)[kvHead];
  if (auto window = getWindow())
    return static_cast<int64_t>(*window);
  return dim(getKRing(), 1);
}

LogicalResult KeyScoresOp::verify() {
  if (failed(verifyBuffers(*this)) ||
      failed(verifyPositionWord(*this, getParams(),
                                static_cast<int64_t>(getPositionWord()))) ||
      failed(verifyScale(*this, getScale().convertToFloat())))
    return failure();
  int64_t kvh = dim(getKRing(), 0), cap = dim(getKRing(), 1), hd = dim(getKRing(), 2);
  FailureOr<int64_t> qh = queryHeads(*this, "q", getQ(), kvh, hd);
  if (failed(qh))
    return failure();
  if (getSinkQ()) {
    if (!getSinkK())
      return emitOpError("sink_q scores sink keys: it needs sink_k");
    if (failed(expectSize(*this, "sink_q", getSinkQ(), *qh * hd, "qh·hd")))
      return failure();
  }
  if (getSinkK() && failed(verifySinks(*this, "sink_k", getSinkK(), kvh, hd)))
    return failure();
  if (getGroupWindows() && getWindow())
    return emitOpError("give group_windows or window, not both");
  if (failed(verifyGroupWindows(*this, getGroupWindows(), kvh, cap)))
    return failure();
  if (auto window = getWindow(); window && (*window < 1 || *window > uint64_t(cap)))
    return emitOpError("window must be in [1, ")
           << cap << "] (the ring capacity), got " << *window;
  int64_t widest = 0;
  for (int64_t g = 0; g < kvh; ++g)
    widest = std::max(widest, getWindowOf(g));
  return verifyScores(*this, getScores(), *qh, getNumSinks() + widest);
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

int64_t AttentionOp::getMaxKeys() {
  int64_t sinks = getSinkV() ? dim(getSinkV(), 1) : 0;
  if (auto windows = getGroupWindows(); windows && !windows->empty())
    return sinks + *llvm::max_element(*windows);
  return sinks + dim(getVRing(), 1);
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyBuffers(*this)) ||
      failed(verifyPositionWord(*this, getParams(), /*word=*/1)))
    return failure();
  int64_t kvh = dim(getVRing(), 0), cap = dim(getVRing(), 1), hd = dim(getVRing(), 2);
  FailureOr<int64_t> qh = queryHeads(*this, "out", getOut(), kvh, hd);
  if (failed(qh))
    return failure();
  if (getFold() && failed(expectSize(*this, "fold", getFold(), *qh * hd,
                                     "a column field per output value")))
    return failure();
  if (getSinkV() && failed(verifySinks(*this, "sink_v", getSinkV(), kvh, hd)))
    return failure();
  if (failed(verifyGroupWindows(*this, getGroupWindows(), kvh, cap)))
    return failure();
  return verifyScores(*this, getScores(), *qh, getMaxKeys());
}
