//===- LowerEmbryo.cpp - GDN, anchor attention, router and head -----------===//

#include "Lowering.h"

#include <cmath>

using namespace mlir;

namespace kiln::lowering {

static std::string symbolOf(Value handle) {
  if (auto state = handle.getDefiningOp<kg::StateOp>())
    return state.getName().str();
  if (auto weight = handle.getDefiningOp<kg::WeightOp>())
    return weight.getName().str();
  return "";
}


LogicalResult Lowering::lowerConvRing(kg::ConvRingStepOp op) {
  Value result = op.getResult();
  if (!result.hasOneUse() || !isa<kg::SiluOp>(*result.getUsers().begin()))
    return refuse(op, "stage.conv_ring applies silu to its output: the result "
                      "must feed exactly one kiln.silu");
  auto silu = cast<kg::SiluOp>(*result.getUsers().begin());
  auto taps = op.getTaps().getDefiningOp<kg::WeightOp>();
  std::string ring = symbolOf(op.getRing());
  if (!taps || ring.empty())
    return refuse(op, "the ring and the taps must be declared state/weight");
  auto ringType = cast<kg::ConvRingType>(op.getRing().getType());
  Value tapsBuffer =
      tensorWeight(taps.getName(), cast<RankedTensorType>(taps.getType()));
  Value ringBuffer = ringType.getTaps() > 1
                         ? stateBuffer(ring, ringType, "")
                         : Value();
  Value input = bufferOf(op.getInput());
  deferred_.insert(silu);
  Value out = bufferOf(silu.getResult());
  OpBuilder b = dispatch(ring);
  stage::ConvRingOp::create(b, op.getLoc(), input, tapsBuffer, ringBuffer, out);
  return success();
}

LogicalResult Lowering::lowerGatedRmsNorm(kg::GatedRmsNormOp op) {
  auto step = op.getInput().getDefiningOp<kg::GdnStepOp>();
  if (!step)
    return refuse(op, "only the gated norm of a kiln.gdn_step has a stage "
                      "(stage.gdn_step)");
  auto gates = step.getDecay().getDefiningOp<kg::GdnGatesOp>();
  auto stateType = cast<kg::GdnStateType>(step.getState().getType());
  if (op.getHeads() != static_cast<uint64_t>(stateType.getVHeads()))
    return refuse(op, "stage.gdn_step normalises per value head: heads (")
           << op.getHeads() << ") must equal the state's v_heads ("
           << stateType.getVHeads() << ")";
  auto aLog = gates.getALog().getDefiningOp<kg::WeightOp>();
  auto dtBias = gates.getDtBias().getDefiningOp<kg::WeightOp>();
  auto norm = op.getWeight().getDefiningOp<kg::WeightOp>();
  std::string state = symbolOf(step.getState());
  if (!aLog || !dtBias || !norm || state.empty())
    return refuse(op, "A_log, dt_bias, the norm weight and the state must be "
                      "declared weights/state");
  auto tensor = [&](kg::WeightOp w) {
    return tensorWeight(w.getName(), cast<RankedTensorType>(w.getType()));
  };
  Value qkv = bufferOf(step.getInput());
  Value z = bufferOf(op.getGate());
  Value a = bufferOf(gates.getA()), bb = bufferOf(gates.getB());
  Value stateBuf = stateBuffer(state, stateType, "");
  Value out = bufferOf(op.getResult());
  Value fold = singleFold(op.getResult());
  // A multi-row program may spread a head's columns over workgroups, the
  // last of them counted (stage.gdn_step's counters).
  Value counters;
  if (rows_ > 1)
    counters = addArgument(
        MemRefType::get({stateType.getVHeads()}, IntegerType::get(op.getContext(), 32)),
        {BufferKind::State, state + ".prefill_counters", {}});
  OpBuilder b = dispatch(state);
  stage::GdnStepOp::create(b, op.getLoc(), qkv, z, a, bb, tensor(aLog),
                           tensor(dtBias), tensor(norm), stateBuf, out, fold, counters,
                           b.getI64IntegerAttr(step.getNumKHeads()),
                           op.getEpsAttr());
  return success();
}

LogicalResult Lowering::lowerKvRingWrite(kg::KvRingWriteOp op) {
  if (auto prep = op.getKey().getDefiningOp<kg::QkPrepOp>())
    return lowerDoryPrep(op, prep);
  auto keyRotary = op.getKey().getDefiningOp<kg::RotaryOp>();
  if (!keyRotary)
    return refuse(op, "the key must come from kiln.rotary (stage."
                      "rope_kv_write) or kiln.qk_prep (stage.dory_prep)");
  // The query rotated with it: the attention that reads this ring next.
  kg::RotaryOp queryRotary;
  for (Operation *user : op.getRing().getUsers())
    if (auto attention = dyn_cast<kg::RingAttentionOp>(user))
      if (op->isBeforeInBlock(attention))
        queryRotary = attention.getQuery().getDefiningOp<kg::RotaryOp>();
  if (!queryRotary)
    return refuse(op, "stage.rope_kv_write rotates q with k: a later "
                      "kiln.ring_attention on this ring must read a "
                      "kiln.rotary query");
  if (queryRotary.getRotaryDim() != keyRotary.getRotaryDim() ||
      queryRotary.getTheta() != keyRotary.getTheta() ||
      queryRotary.getPosition() != op.getPosition() ||
      keyRotary.getPosition() != op.getPosition())
    return refuse(op, "stage.rope_kv_write rotates q and k alike at the "
                      "written position: rotary_dim, theta and position of "
                      "both kiln.rotary ops must match the write");
  auto ringType = cast<kg::KvRingType>(op.getRing().getType());
  std::string ring = symbolOf(op.getRing());
  if (ring.empty())
    return refuse(op, "the ring must be declared state");
  Value kRing = stateBuffer(ring, ringType, "k");
  Value vRing = stateBuffer(ring, ringType, "v");
  Value q = bufferOf(queryRotary.getInput());
  Value k = bufferOf(keyRotary.getInput());
  Value v = bufferOf(op.getValue());
  Value qOut = bufferOf(queryRotary.getResult());
  OpBuilder b = dispatch(ring + ".write");
  stage::RopeKvWriteOp::create(b, op.getLoc(), q, k, v, params_, qOut, kRing,
                               vRing, queryRotary.getRotaryDimAttr(),
                               queryRotary.getThetaAttr());
  return success();
}

LogicalResult Lowering::lowerRingAttention(kg::RingAttentionOp op) {
  if (op.getScoreFloor().convertToFloat() != 16.0f)
    return refuse(op, "stage.attention drops keys more than 16 below the "
                      "maximum; score_floor = ")
           << op.getScoreFloor().convertToFloat();
  auto queryRotary = op.getQuery().getDefiningOp<kg::RotaryOp>();
  if (!queryRotary || queryRotary.getInput() != op.getQueryRaw())
    return refuse(op, "the query must be the kiln.rotary of query_raw "
                      "(rotated by stage.rope_kv_write)");
  auto ringType = cast<kg::KvRingType>(op.getRing().getType());
  std::string ring = symbolOf(op.getRing());
  Value kRing = stateBuffer(ring, ringType, "k");
  Value vRing = stateBuffer(ring, ringType, "v");
  Value sinkK, sinkV;
  if (failed(sinkBuffers(op, op.getSinks(), sinkK, sinkV)))
    return failure();
  Value qRot = bufferOf(op.getQuery()), qPlain = bufferOf(op.getQueryRaw());
  Value out = bufferOf(op.getResult());
  Value fold = singleFold(op.getResult());
  int64_t hd = ringType.getHeadDim();
  // A ring holding more keys than the window (rows written ahead, above)
  // names each group's window.
  DenseI64ArrayAttr windows = op.getGroupWindowsAttr();
  if (!windows && ringCapacity(ringType) != ringType.getCapacity())
    windows = DenseI64ArrayAttr::get(
        op.getContext(), SmallVector<int64_t>(ringType.getKvHeads(), ringType.getCapacity()));
  int64_t widest = windows ? *llvm::max_element(windows.asArrayRef()) : ringType.getCapacity();
  Value scores = scoresBuffer(qRot, kRing, sinkK, widest);
  {
    OpBuilder b = dispatch(ring + ".scores");
    stage::KeyScoresOp::create(b, op.getLoc(), qRot, sinkK ? qPlain : Value(), kRing,
                               sinkK, params_, scores, windows,
                               IntegerAttr(),
                               b.getF32FloatAttr(1.0f / std::sqrt(float(hd))),
                               b.getI64IntegerAttr(1));
  }
  OpBuilder b = dispatch(ring + ".attention");
  stage::AttentionOp::create(b, op.getLoc(), scores, vRing, sinkV, params_, out,
                             fold, windows);
  return success();
}

LogicalResult Lowering::lowerLogSoftmax(kg::LogSoftmaxOp op) {
  auto matvec = op.getInput().getDefiningOp<kg::MatVecOp>();
  if (matvec && isa<RankedTensorType>(matvec.getWeight().getType())) {
    auto clusters = matvec.getWeight().getDefiningOp<kg::WeightOp>();
    if (!clusters)
      return refuse(op, "the cluster matrix must be a declared weight");
    Value c = tensorWeight(clusters.getName(),
                           cast<RankedTensorType>(clusters.getType()));
    // stage.cluster_logits leaves raw logits; stage.head_rows normalises
    // them, so the log-probabilities may feed only the head (and its gate,
    // which the session supplies).
    for (Operation *user : op.getResult().getUsers())
      if (!isa<kg::ClusteredHeadOp, kg::TopPGateOp>(user))
        return refuse(op, "the cluster log-probabilities are formed inside "
                          "stage.head_rows: they may feed only "
                          "kiln.clustered_head and kiln.top_p_gate");
    Value input = bufferOf(matvec.getInput());
    // Formed for the call's last row only (a multi-row program).
    oneRow_.insert(op.getResult());
    Value out = bufferOf(op.getResult());
    OpBuilder b = dispatch("cluster_logits");
    stage::ClusterLogitsOp::create(b, op.getLoc(), input, c, out);
    return success();
  }
  // log_softmax of the returned logits: the host applies it (readback of
  // kind Logits), see bufferOf.
  // Before Dory's early-exit test too: stage.exit_test reads logits.
  for (Operation *user : op.getResult().getUsers())
    if (!isa<kg::ReturnOp, kg::MaxProbOp>(user))
      return refuse(op, "no stage computes log_softmax on the device except "
                        "the cluster logits; a log_softmax is otherwise only "
                        "allowed right before kiln.return (the host applies "
                        "it) or kiln.max_prob (stage.exit_test)");
  return success();
}

LogicalResult Lowering::lowerClusteredHead(kg::ClusteredHeadOp op) {
  if (!op.getGate().getDefiningOp<kg::TopPGateOp>())
    return refuse(op, "stage.head_rows reads its gate from params word 2 "
                      "(the session's head gate): the gate must be "
                      "kiln.top_p_gate");
  auto rows = op.getRows().getDefiningOp<kg::WeightOp>();
  auto type = dyn_cast<kg::WeightType>(op.getRows().getType());
  if (!rows || !type)
    return refuse(op, "the head rows must be a declared matrix weight");
  bool q8 = type.getFormat() == kg::WeightFormat::q8_2f;
  Value r = matrixWeight(rows.getName(), type);
  Value scale = q8 ? rowScale(rows.getName(), type) : Value();
  Value input = q8 ? foldedInput(op.getInput(), colScale(rows.getName(), type))
                   : bufferOf(op.getInput());
  Value lc = bufferOf(op.getClusterLogprobs());
  Value out = bufferOf(op.getResult());
  OpBuilder b = dispatch("head_rows");
  headTopP_ = true;
  stage::HeadRowsOp::create(
      b, op.getLoc(), input, r, scale, lc, params_, out,
      stage::MatrixFormatAttr::get(b.getContext(),
                                   q8 ? stage::MatrixFormat::q8_2f
                                      : stage::MatrixFormat::f16));
  return success();
}

} // namespace kiln::lowering
