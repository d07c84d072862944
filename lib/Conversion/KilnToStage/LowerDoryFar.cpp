//===- LowerDoryFar.cpp - Dory's far field and early exit ------------------===//
//
// Where each stage goes follows the CPU reference (DorySession.cpp) for a
// one-row call, the only call the stages model (docs/stages.md):
//  - far_field_push once per step, in pass 0, where kiln.far_field_push is
//    (before the ring write): it folds key pos - window with its final value;
//    later passes would fold nothing again.
//  - landmark_capture + landmark_seal in pass 0 only, after the prep and
//    before the layer's attention: the reference keeps the pass-0 queries of
//    the first call.
//  - after each pass but the last: mix mode 3, the read-out head into the
//    readback buffer, exit_test; every later dispatch carries skip_if.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <cstdio>
#include <cstdlib>

using namespace mlir;

namespace kiln::lowering {

static std::string symbolOf(Value handle) {
  if (auto state = handle.getDefiningOp<kg::StateOp>())
    return state.getName().str();
  return "";
}

LogicalResult Lowering::lowerFarFieldPush(kg::FarFieldPushOp op) {
  std::string far = symbolOf(op.getFar()), ring = symbolOf(op.getRing());
  if (far.empty() || ring.empty())
    return refuse(op, "the far field and the ring must be declared state");
  auto ringType = cast<kg::KvRingType>(op.getRing().getType());
  // The push reads key pos - window from slot (pos - window) mod capacity;
  // with capacity == window that is the slot this step's write replaces.
  if (static_cast<int64_t>(op.getWindow()) == ringType.getCapacity())
    for (Operation *before = op->getPrevNode(); before;
         before = before->getPrevNode())
      if (auto write = dyn_cast<kg::KvRingWriteOp>(before))
        if (symbolOf(write.getRing()) == ring)
          return refuse(op, "with capacity == window the push must come "
                            "before the step's kiln.kv_ring_write of its ring "
                            "(the write replaces the key leaving the window)");
  // Pushes repeat per pass at the kiln level and fold nothing again; the
  // stage folds once per step.
  if (pass_ > 0)
    return success();
  auto farType = cast<kg::FarFieldType>(op.getFar().getType());
  Value kRing = stateBuffer(ring, ringType, "k");
  Value vRing = stateBuffer(ring, ringType, "v");
  // One statement each (argument evaluation order is unspecified: the plan's
  // buffer order must not depend on the compiler that built kiln-compile).
  Value meta = stateBuffer(far, farType, "meta");
  Value sums = stateBuffer(far, farType, "sums");
  Value landmarks = stateBuffer(far, farType, "landmarks");
  OpBuilder b = dispatch(far + ".push");
  stage::FarFieldPushOp::create(b, op.getLoc(), kRing, vRing, params_, landmarks, sums, meta,
                                op.getWindowAttr(), op.getScaleAttr());
  return success();
}

LogicalResult Lowering::lowerFarFieldCapture(kg::FarFieldCaptureOp op) {
  std::string far = symbolOf(op.getFar());
  if (far.empty())
    return refuse(op, "the far field must be declared state");
  auto prep = op.getQuery().getDefiningOp<kg::QkPrepOp>();
  if (!prep || op.getQuery() != prep.getQueryOut())
    return refuse(op, "stage.landmark_capture copies the prepped query that "
                      "stage.dory_prep writes: the query must be "
                      "kiln.qk_prep's first result");
  // The reference keeps the pass-0 queries; later passes capture nothing.
  if (pass_ > 0)
    return success();
  if (pendingCaptures_.count(far))
    return refuse(op, "a second capture of the far field in one pass");
  // Emitted with the seal before the far field's attention, once the prep
  // has written the query (the capture comes before the ring write).
  pendingCaptures_[far] = op;
  return success();
}

LogicalResult Lowering::farFieldBuffers(kg::WindowAttentionOp op,
                                        SmallVectorImpl<Value> &out) {
  std::string far = symbolOf(op.getFar());
  if (far.empty())
    return refuse(op, "the far field must be declared state");
  auto farType = cast<kg::FarFieldType>(op.getFar().getType());
  Value landmarks = stateBuffer(far, farType, "landmarks");
  Value inverse = stateBuffer(far, farType, "inverse");
  Value sums = stateBuffer(far, farType, "sums");
  Value meta = stateBuffer(far, farType, "meta");
  auto pending = pendingCaptures_.find(far);
  if (pending != pendingCaptures_.end()) {
    kg::FarFieldCaptureOp capture = pending->second;
    pendingCaptures_.erase(pending);
    // The prep that wrote the query captures it too (no dispatch of its
    // own); nothing between them touches the landmarks or the meta, which
    // only this far field's stages use and which come after the prep.
    Value query = bufferOf(capture.getQuery());
    stage::DoryPrepOp prep;
    for (Operation &op : llvm::reverse(*builder_.getInsertionBlock())) {
      op.walk([&](stage::DoryPrepOp p) {
        if (!prep && p.getQOut() == query)
          prep = p;
      });
      if (prep)
        break;
    }
    if (prep && !prep.getLandmarks()) {
      prep.getLandmarksMutable().assign(landmarks);
      prep.getFarMetaMutable().assign(meta);
      prep.setLandmarkStrideAttr(capture.getStrideAttr());
    } else {
      OpBuilder b = dispatch(far + ".capture");
      stage::LandmarkCaptureOp::create(b, capture.getLoc(), query, params_, meta,
                                       landmarks, capture.getStrideAttr());
    }
    // One-row calls: the first call (position 0) seals one landmark, as the
    // reference does for a one-row first call.
    OpBuilder b = dispatch(far + ".seal");
    stage::LandmarkSealOp::create(b, capture.getLoc(), landmarks, params_,
                                  inverse, sums, meta, capture.getScaleAttr(),
                                  capture.getStrideAttr());
  }
  out.append({landmarks, inverse, sums, meta});
  return success();
}

Value Lowering::exitFlag() {
  if (!exitFlag_)
    exitFlag_ = addArgument(
        MemRefType::get({1}, builder_.getI32Type()),
        {BufferKind::State, "loop.exit", {}});
  return exitFlag_;
}

/// The decimal the config most likely held: the shortest text that reads
/// back as the f32 attribute, as a double (0.9f -> 0.9), so the test decides
/// as the reference's `exp(double(best)) >= threshold` on the config value.
static double configThreshold(APFloat value) {
  float f = value.convertToFloat();
  for (int digits = 1; digits < 9; ++digits) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(f));
    double read = std::strtod(text, nullptr);
    if (static_cast<float>(read) == f)
      return read;
  }
  return static_cast<double>(f);
}

LogicalResult Lowering::lowerMaxProb(kg::MaxProbOp op) {
  if (!inReadout_)
    return refuse(op, "kiln.max_prob is lowered only as the early-exit test "
                      "of a kiln.loop read-out (stage.exit_test)");
  auto softmax = op.getInput().getDefiningOp<kg::LogSoftmaxOp>();
  if (!softmax)
    return refuse(op, "stage.exit_test reads the read-out's logits: the "
                      "input must be a kiln.log_softmax");
  auto type = cast<RankedTensorType>(softmax.getInput().getType());
  if (type.getNumElements() != vocab_)
    return refuse(op, "the read-out's logits land in the readback, which "
                      "holds the vocabulary (")
           << vocab_ << " values), got " << type.getNumElements();
  Value logits = bufferOf(softmax.getInput());
  OpBuilder b = dispatch("exit_test");
  stage::ExitTestOp::create(b, op.getLoc(), logits, exitFlag(),
                            b.getF64FloatAttr(exitThreshold_),
                            b.getI64IntegerAttr(0), b.getUnitAttr());
  return success();
}

LogicalResult Lowering::lowerReadout(kg::LoopOp op, float eps) {
  Block &readout = op.getReadout().front();
  auto yield = cast<kg::YieldOp>(readout.getTerminator());
  if (yield.getValues().size() != 1 ||
      !yield.getValues().front().getDefiningOp<kg::MaxProbOp>())
    return refuse(op, "the read-out must yield the kiln.max_prob of the "
                      "head's log-probs (stage.exit_test)");
  Value hidden = bufferOf(op.getInput());
  // Mode 3: h = st = unit(h); the read-out then reads h.
  if (failed(emitMix(op, kg::MixMode::exit_readout, op.getState(),
                     op.getInput(), eps)))
    return failure();
  // Fresh activation buffers for each read-out (as for each pass).
  readout.walk([&](Operation *inner) {
    for (Value result : inner->getResults())
      activations_.erase(result);
  });
  SmallVector<std::pair<Value, Value>> stale;
  for (auto &entry : folded_)
    if (entry.first.first.getParentRegion() == &op.getReadout())
      stale.push_back(entry.first);
  for (auto &key : stale)
    folded_.erase(key);
  alias(readout.getArgument(0), hidden);
  exitThreshold_ = configThreshold(*op.getExitThreshold());
  inReadout_ = true;
  for (Operation &inner : readout.without_terminator())
    if (failed(lowerOp(&inner)))
      return failure();
  inReadout_ = false;
  // From here on an exit skips the rest of the call; on an exit the
  // read-out's logits stay in the readback (the reference returns them).
  skipping_ = true;
  return emitMix(op, kg::MixMode::resume, op.getState(), op.getInput(), eps);
}

} // namespace kiln::lowering
