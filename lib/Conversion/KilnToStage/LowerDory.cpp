//===- LowerDory.cpp - Dory prep, near attention, gate, MLP, slerp, loop --===//

#include "Lowering.h"

using namespace mlir;

namespace kiln::lowering {

static std::string stateSymbol(Value handle) {
  if (auto state = handle.getDefiningOp<kg::StateOp>())
    return state.getName().str();
  return "";
}


LogicalResult Lowering::lowerDoryPrep(kg::KvRingWriteOp op, kg::QkPrepOp prep) {
  auto qRot = prep.getQuery().getDefiningOp<kg::RotaryOp>();
  auto kRot = prep.getKey().getDefiningOp<kg::RotaryOp>();
  int64_t hd = static_cast<int64_t>(prep.getHeadDim());
  if (static_cast<int64_t>(qRot.getRotaryDim()) != hd ||
      static_cast<int64_t>(kRot.getRotaryDim()) != hd ||
      qRot.getTheta() != kRot.getTheta())
    return refuse(op, "stage.dory_prep applies full rotary (rotary_dim = "
                      "head_dim) with one theta to q and k");
  if (qRot.getPosition() != op.getPosition() ||
      kRot.getPosition() != op.getPosition())
    return refuse(op, "stage.dory_prep rotates at the written position");
  auto sqk = prep.getQkScale().getDefiningOp<kg::WeightOp>();
  std::string ring = stateSymbol(op.getRing());
  if (!sqk || ring.empty())
    return refuse(op, "s_qk and the ring must be a declared weight/state");
  auto ringType = cast<kg::KvRingType>(op.getRing().getType());
  Value kRing = stateBuffer(ring, ringType, "k");
  Value vRing = stateBuffer(ring, ringType, "v");
  Value s = tensorWeight(sqk.getName(), cast<RankedTensorType>(sqk.getType()));
  Value q = bufferOf(qRot.getInput()), k = bufferOf(kRot.getInput());
  Value v = bufferOf(op.getValue());
  Value qOut = bufferOf(prep.getQueryOut());
  OpBuilder b = dispatch(ring + ".prep");
  stage::DoryPrepOp::create(b, op.getLoc(), q, k, v, s, params_, qOut, kRing, vRing,
                            /*landmarks=*/Value(), /*far_meta=*/Value(),
                            qRot.getThetaAttr(), prep.getEpsAttr(),
                            /*landmark_stride=*/IntegerAttr());
  return success();
}

LogicalResult Lowering::lowerWindowAttention(kg::WindowAttentionOp op) {
  auto ringType = cast<kg::KvRingType>(op.getRing().getType());
  std::string ring = stateSymbol(op.getRing());
  if (ring.empty())
    return refuse(op, "the ring must be declared state");
  Value kRing = stateBuffer(ring, ringType, "k");
  Value vRing = stateBuffer(ring, ringType, "v");
  Value q = bufferOf(op.getQuery());
  // Sinks, first in the near set of both stages below.
  Value sinkK, sinkV;
  if (failed(sinkBuffers(op, op.getSinks(), sinkK, sinkV)))
    return failure();
  // stage.window_attention applies the output gate too: with one
  // kiln.output_gate reading the result, one stage does both.
  kg::OutputGateOp gate;
  if (op.getResult().hasOneUse())
    gate = dyn_cast<kg::OutputGateOp>(*op.getResult().getUsers().begin());
  if (gate && gate.getInput() != op.getResult())
    gate = nullptr;
  auto sg = gate ? gate.getGateScale().getDefiningOp<kg::WeightOp>()
                 : kg::WeightOp();
  if (!gate || !sg) {
    if (op.getFar())
      return refuse(op, "stage.window_attention applies the output gate: "
                        "with a far field the result must feed exactly one "
                        "kiln.output_gate (as its input) whose s_g is a "
                        "declared weight");
    // No gate to fuse: stage.attention reads the last min(t+1, W) slots of
    // the ring; a window shorter than the ring is a group window.
    Value out = bufferOf(op.getResult());
    Value fold = singleFold(op.getResult());
    int64_t window = static_cast<int64_t>(op.getWindow());
    Value scores = scoresBuffer(q, kRing, sinkK, window);
    DenseI64ArrayAttr windows;
    if (window < ringType.getCapacity())
      windows = DenseI64ArrayAttr::get(
          op.getContext(), SmallVector<int64_t>(ringType.getKvHeads(), window));
    {
      OpBuilder b = dispatch(ring + ".scores");
      stage::KeyScoresOp::create(b, op.getLoc(), q, Value(), kRing, sinkK, params_,
                                 scores, windows, IntegerAttr(), op.getScaleAttr(),
                                 b.getI64IntegerAttr(1));
    }
    OpBuilder b = dispatch(ring + ".attention");
    stage::AttentionOp::create(b, op.getLoc(), scores, vRing, sinkV, params_, out,
                               fold, windows);
    return success();
  }
  SmallVector<Value, 4> far(4, Value());
  if (op.getFar()) {
    far.clear();
    if (failed(farFieldBuffers(op, far)))
      return failure();
  }
  deferred_.insert(gate);
  Value g = bufferOf(gate.getGate());
  Value s = tensorWeight(sg.getName(), cast<RankedTensorType>(sg.getType()));
  Value out = bufferOf(gate.getResult());
  Value fold = singleFold(gate.getResult());
  Value scores = scoresBuffer(q, kRing, sinkK, static_cast<int64_t>(op.getWindow()));
  {
    OpBuilder b = dispatch(ring + ".scores");
    stage::KeyScoresOp::create(b, op.getLoc(), q, Value(), kRing, sinkK, params_,
                               scores, DenseI64ArrayAttr(), op.getWindowAttr(),
                               op.getScaleAttr(), b.getI64IntegerAttr(1));
  }
  OpBuilder b = dispatch(ring + ".attention");
  stage::WindowAttentionOp::create(
      b, op.getLoc(), q, scores, vRing, sinkV, g, s, params_, far[0], far[1], far[2],
      far[3], out, fold, op.getWindowAttr(), op.getScaleAttr(),
      op.getRectify() ? b.getUnitAttr() : UnitAttr());
  return success();
}

LogicalResult Lowering::lowerOutputGate(kg::OutputGateOp op) {
  Value o = bufferOf(op.getInput()), g = bufferOf(op.getGate());
  auto sg = op.getGateScale().getDefiningOp<kg::WeightOp>();
  if (!sg)
    return refuse(op, "s_g must be a declared weight");
  Value s = tensorWeight(sg.getName(), cast<RankedTensorType>(sg.getType()));
  int64_t size = cast<MemRefType>(g.getType()).getNumElements();
  Value scaled = freshScratch(size, "plane.gate.scaled");
  {
    OpBuilder b = dispatch("gate_scale");
    stage::MulOp::create(b, op.getLoc(), g, s, scaled, Value());
  }
  Value out = bufferOf(op.getResult());
  Value fold = singleFold(op.getResult());
  OpBuilder b = dispatch("output_gate");
  stage::SigmoidGateOp::create(b, op.getLoc(), o, scaled, out, fold);
  return success();
}

LogicalResult Lowering::lowerScaledSwiGlu(kg::ScaledSwiGluOp op) {
  auto su = op.getGateScale().getDefiningOp<kg::WeightOp>();
  auto sv = op.getUpScale().getDefiningOp<kg::WeightOp>();
  if (!su || !sv)
    return refuse(op, "s_u and s_v must be declared weights");
  Value g = bufferOf(op.getGate()), u = bufferOf(op.getUp());
  int64_t size = cast<MemRefType>(g.getType()).getNumElements();
  Value gs = freshScratch(size, "plane.mlp.gate.scaled");
  Value us = freshScratch(size, "plane.mlp.up.scaled");
  {
    OpBuilder b = dispatch("mlp_gate_scale");
    stage::MulOp::create(
        b, op.getLoc(), g,
        tensorWeight(su.getName(), cast<RankedTensorType>(su.getType())), gs,
        Value());
  }
  {
    OpBuilder b = dispatch("mlp_up_scale");
    stage::MulOp::create(
        b, op.getLoc(), u,
        tensorWeight(sv.getName(), cast<RankedTensorType>(sv.getType())), us,
        Value());
  }
  Value out = bufferOf(op.getResult());
  Value fold = singleFold(op.getResult());
  OpBuilder b = dispatch("silu_mul");
  stage::SiluMulOp::create(b, op.getLoc(), gs, us, out, fold);
  return success();
}

LogicalResult Lowering::lowerSlerp(kg::SlerpResidualOp op) {
  if (failed(checkLastUse(op.getInput(), op)))
    return failure();
  auto alpha = op.getAlpha().getDefiningOp<kg::WeightOp>();
  if (!alpha)
    return refuse(op, "alpha must be a declared weight");
  Value h = bufferOf(op.getInput());
  Value update = bufferOf(op.getUpdate());
  Value a = tensorWeight(alpha.getName(), cast<RankedTensorType>(alpha.getType()));
  OpBuilder b = dispatch(alpha.getName());
  stage::SlerpOp::create(b, op.getLoc(), h, update, a, op.getEpsAttr());
  alias(op.getResult(), h);
  return success();
}

LogicalResult Lowering::emitMix(Operation *at, kg::MixMode mode,
                                Value stateHandle, Value hidden, float eps) {
  std::string name = stateSymbol(stateHandle);
  if (name.empty())
    return refuse(at, "the loop state must be declared state");
  if (failed(checkLastUse(hidden, at)))
    return failure();
  Type type = stateHandle.getType();
  Value entry = stateBuffer(name, type, "in");
  Value state = stateBuffer(name, type, "st");
  OpBuilder b = dispatch(("mix_" + kg::stringifyMixMode(mode)).str());
  stage::DoryMixOp::create(b, at->getLoc(), bufferOf(hidden), entry, state,
                           b.getI64IntegerAttr(static_cast<int64_t>(mode)),
                           b.getF32FloatAttr(eps));
  return success();
}

LogicalResult Lowering::lowerLoop(kg::LoopOp op) {
  float eps = model_.getEps().convertToFloat();
  Value input = op.getInput();
  if (failed(emitMix(op, kg::MixMode::enter, op.getState(), input, eps)))
    return failure();
  Value hidden = bufferOf(input);
  Block &body = op.getBody().front();
  if (!body.getArgument(1).use_empty())
    return refuse(op, "the pass index has no stage: a pass may not read it");
  int64_t passes = static_cast<int64_t>(op.getPasses());
  for (int64_t pass = 0; pass < passes; ++pass) {
    pass_ = pass;
    // Each pass gets fresh activation buffers (the planner shares them).
    llvm::DenseSet<Value> bodyValues;
    body.walk([&](Operation *inner) {
      for (Value result : inner->getResults())
        bodyValues.insert(result);
    });
    for (Value value : bodyValues)
      activations_.erase(value);
    SmallVector<std::pair<Value, Value>> stale;
    for (auto &entry : folded_)
      if (bodyValues.contains(entry.first.first) ||
          entry.first.first == body.getArgument(0))
        stale.push_back(entry.first);
    for (auto &key : stale)
      folded_.erase(key);
    alias(body.getArgument(0), hidden);
    for (Operation &inner : body.without_terminator())
      if (failed(lowerOp(&inner)))
        return failure();
    for (auto &pending : pendingCaptures_)
      return refuse(pending.second, "no kiln.window_attention of this pass "
                                    "reads the far field after the capture, "
                                    "so no stage would seal its landmarks");
    Value yielded = cast<kg::YieldOp>(body.getTerminator()).getValues().front();
    if (bufferOf(yielded) != hidden)
      return refuse(op, "a pass must update h in place (a chain of "
                        "kiln.slerp_residual from the pass input)");
    if (pass + 1 < passes && op.getExitThreshold()) {
      // Mode 3, the read-out, the exit test, mode 4 (LowerDoryFar.cpp).
      if (failed(lowerReadout(op, eps)))
        return failure();
      continue;
    }
    kg::MixMode mode =
        pass + 1 == passes ? kg::MixMode::leave : kg::MixMode::between;
    // The edge reads and writes h; its kiln value is the yielded one.
    OpBuilder b = dispatch(("mix_" + kg::stringifyMixMode(mode)).str());
    std::string name = stateSymbol(op.getState());
    // Declared one statement each: the order of function arguments' evaluation
    // is unspecified, and it would order the plan's buffers by compiler.
    Value state = stateBuffer(name, op.getState().getType(), "st");
    Value entry = stateBuffer(name, op.getState().getType(), "in");
    stage::DoryMixOp::create(b, op.getLoc(), hidden, entry, state,
                             b.getI64IntegerAttr(static_cast<int64_t>(mode)),
                             b.getF32FloatAttr(eps));
  }
  pass_ = 0;
  alias(op.getResult(), hidden);
  return success();
}

} // namespace kiln::lowering
