//===- DoryFarFieldOps.cpp - Verifiers of Dory's far field and early exit -===//
//
// window_attention, far_field_push, landmark_capture, landmark_seal,
// exit_test, and the dispatch's skip flag. Every rule the kernels
// (lib/Conversion/StageToGPU/DoryFarField.cpp, DoryExit.cpp) rely on is
// checked here with a message naming it. The far-field state layout is the
// one StageOps.td states above these ops.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "BufferRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace kiln::stage;
using namespace kiln::stage::detail;

namespace {

LogicalResult verifyRingPair(Operation *op, Value kRing, Value vRing) {
  if (kRing.getType() != vRing.getType())
    return op->emitOpError("k_ring and v_ring must have one type, got ")
           << kRing.getType() << " and " << vRing.getType();
  return success();
}

/// The largest m: the seed's per-thread arrays (float fe[32]) and the
/// config's far_field.landmarks range.
constexpr int64_t kMaxLandmarks = 32;

/// landmarks [kvh, m, hd], optional inverse [kvh, m, m], optional far_sums
/// [kvh, m, hd + 2], far_meta 3·kvh words.
LogicalResult verifyFarState(Operation *op, int64_t kvh, int64_t hd,
                             Value landmarks, Value inverse, Value farSums,
                             Value farMeta) {
  auto landmarksType = llvm::cast<MemRefType>(landmarks.getType());
  int64_t m = landmarksType.getDimSize(1);
  if (landmarksType.getDimSize(0) != kvh || landmarksType.getDimSize(2) != hd)
    return op->emitOpError("landmarks must be [kvh = ")
           << kvh << ", m, hd = " << hd << "], got " << landmarksType;
  if (m < 1 || m > kMaxLandmarks)
    return op->emitOpError("landmarks per KV head must be in [1, ")
           << kMaxLandmarks << "], got " << m;
  if (inverse && (dim(inverse, 0) != kvh || dim(inverse, 1) != m ||
                  dim(inverse, 2) != m))
    return op->emitOpError("inverse must be [kvh = ")
           << kvh << ", m = " << m << ", m = " << m << "], got "
           << inverse.getType();
  if (farSums && (dim(farSums, 0) != kvh || dim(farSums, 1) != m ||
                  dim(farSums, 2) != hd + 2))
    return op->emitOpError("far_sums must be [kvh = ")
           << kvh << ", m = " << m << ", hd + 2 = " << hd + 2
           << "] (z, n, then θ per landmark), got " << farSums.getType();
  return expectSize(op, "far_meta", farMeta, 3 * kvh,
                        "3 words per KV head: count, next to fold, folded");
}

} // namespace

//===----------------------------------------------------------------------===//
// Dispatch skip flag
//===----------------------------------------------------------------------===//

void DispatchOp::build(OpBuilder &builder, OperationState &state,
                       StringRef name, Value skipFlag, int64_t skipWord) {
  build(builder, state, name);
  state.addOperands(skipFlag);
  state.addAttribute(getSkipWordAttrName(state.name),
                     builder.getI64IntegerAttr(skipWord));
}

//===----------------------------------------------------------------------===//
// window_attention
//===----------------------------------------------------------------------===//

int64_t WindowAttentionOp::getNumSinks() {
  return getSinkV() ? dim(getSinkV(), 1) : 0;
}

LogicalResult WindowAttentionOp::verify() {
  if (failed(verifyBuffers(*this)) ||
      failed(verifyPositionWord(*this, getParams(),
                                static_cast<int64_t>(getPositionWord()))) ||
      failed(verifyScale(*this, getScale().convertToFloat())))
    return failure();
  int64_t kvh = dim(getVRing(), 0), cap = dim(getVRing(), 1),
          hd = dim(getVRing(), 2);
  FailureOr<int64_t> qh = queryHeads(*this, "q", getQ(), kvh, hd);
  if (failed(qh))
    return failure();
  int64_t size = *qh * hd;
  if (failed(expectSize(*this, "gate", getGate(), size, "qh·hd")) ||
      failed(expectSize(*this, "gate_scale", getGateScale(), size,
                            "qh·hd")) ||
      failed(expectSize(*this, "output", getOut(), size, "qh·hd")))
    return failure();
  if (getFold() && failed(expectSize(*this, "fold", getFold(), size,
                                         "a column field per output value")))
    return failure();
  int64_t window = static_cast<int64_t>(getWindow());
  if (window < 1 || window > cap)
    return emitOpError("window must be in [1, ")
           << cap << "] (the ring capacity), got " << window;
  if (getSinkV() && failed(verifySinks(*this, "sink_v", getSinkV(), kvh, hd)))
    return failure();
  int64_t sinks = getNumSinks();
  if (failed(verifyScores(*this, getScores(), *qh, sinks + window)))
    return failure();
  if (getLandmarks()) {
    if (failed(verifyFarState(*this, kvh, hd, getLandmarks(), getInverse(),
                              getFarSums(), getFarMeta())))
      return failure();
  } else if (getRectify()) {
    return emitOpError("rectify clamps the far field's weights: it needs "
                       "far(...)");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// far_field_push
//===----------------------------------------------------------------------===//

LogicalResult FarFieldPushOp::verify() {
  if (failed(verifyBuffers(*this)) ||
      failed(verifyPositionWord(*this, getParams(),
                                static_cast<int64_t>(getPositionWord()))) ||
      failed(verifyRingPair(*this, getKRing(), getVRing())) ||
      failed(verifyScale(*this, getScale().convertToFloat())))
    return failure();
  int64_t kvh = dim(getKRing(), 0), cap = dim(getKRing(), 1),
          hd = dim(getKRing(), 2);
  int64_t window = static_cast<int64_t>(getWindow());
  if (window < 1 || window > cap)
    return emitOpError("window must be in [1, ")
           << cap << "] (the ring capacity), got " << window;
  return verifyFarState(*this, kvh, hd, getLandmarks(), Value(), getFarSums(),
                        getFarMeta());
}

//===----------------------------------------------------------------------===//
// landmark_capture / landmark_seal
//===----------------------------------------------------------------------===//

LogicalResult LandmarkCaptureOp::verify() {
  if (failed(verifyBuffers(*this)) ||
      failed(verifyPositionWord(*this, getParams(),
                                static_cast<int64_t>(getPositionWord()))))
    return failure();
  int64_t kvh = dim(getLandmarks(), 0), hd = dim(getLandmarks(), 2);
  if (failed(queryHeads(*this, "q", getQ(), kvh, hd)))
    return failure();
  if (static_cast<int64_t>(getStride()) < 1)
    return emitOpError("stride must be at least 1, got ")
           << static_cast<int64_t>(getStride());
  return verifyFarState(*this, kvh, hd, getLandmarks(), Value(), Value(),
                        getFarMeta());
}

LogicalResult LandmarkSealOp::verify() {
  if (failed(verifyBuffers(*this)) ||
      failed(verifyPositionWord(*this, getParams(),
                                static_cast<int64_t>(getPositionWord()))) ||
      failed(verifyScale(*this, getScale().convertToFloat())))
    return failure();
  int64_t kvh = dim(getLandmarks(), 0), hd = dim(getLandmarks(), 2);
  if (static_cast<int64_t>(getStride()) < 1)
    return emitOpError("stride must be at least 1, got ")
           << static_cast<int64_t>(getStride());
  return verifyFarState(*this, kvh, hd, getLandmarks(), getInverse(),
                        getFarSums(), getFarMeta());
}

//===----------------------------------------------------------------------===//
// exit_test
//===----------------------------------------------------------------------===//

LogicalResult ExitTestOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  double threshold = getThreshold().convertToDouble();
  if (!(threshold > 0.0 && threshold <= 1.0))
    return emitOpError("threshold must be in (0, 1] (a probability), got ")
           << threshold;
  int64_t word = static_cast<int64_t>(getFlagWord());
  if (word < 0 || word >= dim(getFlag(), 0))
    return emitOpError("flag_word ")
           << word << " is outside the flag buffer (" << dim(getFlag(), 0)
           << " words)";
  return success();
}

float ExitTestOp::getLogThreshold() {
  const double threshold = getThreshold().convertToDouble();
  // Start near log(t) and step to the least f32 whose exp reaches t.
  float bound = static_cast<float>(std::log(threshold));
  while (std::exp(static_cast<double>(bound)) < threshold)
    bound = std::nextafter(bound, INFINITY);
  for (;;) {
    float lower = std::nextafter(bound, -INFINITY);
    if (std::exp(static_cast<double>(lower)) < threshold)
      return bound;
    bound = lower;
  }
}
