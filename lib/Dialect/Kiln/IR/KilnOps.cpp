//===- KilnOps.cpp - verifiers of the kiln math ops ----------------------===//
//
// Each rule of docs/MODELS.md and docs/config.md that a single op can check,
// with a message naming the rule and the values involved. Rules must hold for
// any legal config, never just the seed's sizes.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace kiln::graph;

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"

static int64_t sizeOf(Value value) { return getElementCount(value.getType()); }

static bool isPositive(const APFloat &value) {
  return value.convertToDouble() > 0.0;
}

// `what` (a tensor operand/result) must hold exactly `expected` values.
static LogicalResult checkSize(Operation *op, StringRef what, Value value,
                               int64_t expected, StringRef rule) {
  int64_t actual = sizeOf(value);
  if (actual == expected)
    return success();
  return op->emitOpError() << what << " has " << actual << " values, expected "
                           << expected << " (" << rule << ")";
}

static LogicalResult checkShape(Operation *op, StringRef what, Value value,
                                ArrayRef<int64_t> expected) {
  auto shape = cast<RankedTensorType>(value.getType()).getShape();
  if (shape == expected)
    return success();
  InFlightDiagnostic diag = op->emitOpError() << what << " has shape [";
  llvm::interleaveComma(shape, diag);
  diag << "], expected [";
  llvm::interleaveComma(expected, diag);
  return diag << "]";
}

static LogicalResult checkHeadDim(Operation *op, int64_t headDim) {
  if (headDim >= 1)
    return success();
  return op->emitOpError() << "head_dim (" << headDim << ") must be >= 1";
}

static LogicalResult checkHeadGroups(Operation *op, int64_t qHeads,
                                     int64_t kvHeads) {
  if (qHeads < 1)
    return op->emitOpError() << "num_q_heads (" << qHeads << ") must be >= 1";
  if (qHeads % kvHeads != 0)
    return op->emitOpError() << "num_q_heads (" << qHeads
                             << ") must be a multiple of the KV heads ("
                             << kvHeads << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Common math
//===----------------------------------------------------------------------===//

LogicalResult EmbedOp::verify() {
  auto weight = dyn_cast<WeightType>(getTable().getType());
  if (weight && weight.getFormat() != WeightFormat::f16)
    return emitOpError() << "table must be stored as f16 (it is gathered, not "
                            "multiplied), got "
                         << stringifyWeightFormat(weight.getFormat());
  auto [rows, cols] = getMatrixShape(getTable().getType());
  (void)rows;
  return checkSize(*this, "result", getResult(), cols, "the table's cols");
}

LogicalResult RmsNormOp::verify() {
  if (!isPositive(getEps()))
    return emitOpError() << "eps must be > 0";
  return success();
}

LogicalResult MatVecOp::verify() {
  auto [rows, cols] = getMatrixShape(getWeight().getType());
  if (failed(checkSize(*this, "input", getInput(), cols, "the weight's cols")))
    return failure();
  return checkSize(*this, "result", getResult(), rows, "the weight's rows");
}

//===----------------------------------------------------------------------===//
// GDN
//===----------------------------------------------------------------------===//

LogicalResult ConvRingStepOp::verify() {
  ConvRingType ring = getRing().getType();
  if (failed(checkSize(*this, "input", getInput(), ring.getChannels(),
                       "the ring's channels")) ||
      failed(checkShape(*this, "taps", getTaps(),
                        {ring.getChannels(), ring.getTaps()})))
    return failure();
  return checkSize(*this, "result", getResult(), ring.getChannels(),
                   "the ring's channels");
}

LogicalResult GdnStepOp::verify() {
  GdnStateType state = getState().getType();
  int64_t nv = state.getVHeads(), dk = state.getKDim(), dv = state.getVDim();
  int64_t nk = getNumKHeads();
  if (nk < 1)
    return emitOpError() << "num_k_heads (" << nk << ") must be >= 1";
  if (nv % nk != 0)
    return emitOpError() << "value heads (" << nv
                         << ") must be a multiple of num_k_heads (" << nk
                         << ")";
  if (!isPositive(getQkEps()))
    return emitOpError() << "qk_eps must be > 0";
  if (failed(checkSize(*this, "input", getInput(), 2 * nk * dk + nv * dv,
                       "cdim = 2*nk*dk + nv*dv")) ||
      failed(checkSize(*this, "decay", getDecay(), nv, "one per value head")))
    return failure();
  return checkSize(*this, "result", getResult(), nv * dv, "nv*dv");
}

LogicalResult GatedRmsNormOp::verify() {
  int64_t heads = getHeads();
  if (heads < 1)
    return emitOpError() << "heads (" << heads << ") must be >= 1";
  if (!isPositive(getEps()))
    return emitOpError() << "eps must be > 0";
  int64_t total = sizeOf(getInput());
  if (total % heads != 0)
    return emitOpError() << "input size (" << total
                         << ") must be a multiple of heads (" << heads << ")";
  return checkSize(*this, "weight", getWeight(), total / heads,
                   "one entry per value of a head");
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

LogicalResult RotaryOp::verify() {
  int64_t heads = getHeads(), headDim = getHeadDim(), rot = getRotaryDim();
  if (heads < 1)
    return emitOpError() << "heads (" << heads << ") must be >= 1";
  if (failed(checkHeadDim(*this, headDim)))
    return failure();
  if (rot < 0 || rot % 2 != 0 || rot > headDim)
    return emitOpError() << "rotary_dim (" << rot
                         << ") must be even and in 0..head_dim (" << headDim
                         << ")";
  if (!isPositive(getTheta()))
    return emitOpError() << "theta must be > 0";
  return checkSize(*this, "input", getInput(), heads * headDim,
                   "heads*head_dim");
}

LogicalResult KvRingWriteOp::verify() {
  KvRingType ring = getRing().getType();
  return checkSize(*this, "key", getKey(),
                   ring.getKvHeads() * ring.getHeadDim(), "kv_heads*head_dim");
}

/// Optional sinks are (sink_k, sink_v), each [kv_heads, num_sinks >= 1,
/// head_dim] (ring_attention and window_attention).
static LogicalResult checkSinks(Operation *op, OperandRange sinks, int64_t kvh,
                                int64_t hd) {
  if (sinks.empty())
    return success();
  if (sinks.size() != 2)
    return op->emitOpError() << "sinks must be (sink_k, sink_v), got "
                             << sinks.size() << " operands";
  auto keyShape = cast<RankedTensorType>(sinks[0].getType()).getShape();
  if (keyShape.size() != 3 || keyShape[1] < 1)
    return op->emitOpError() << "sink_k must be [kv_heads, num_sinks >= 1, "
                                "head_dim]";
  int64_t ns = keyShape[1];
  if (failed(checkShape(op, "sink_k", sinks[0], {kvh, ns, hd})) ||
      failed(checkShape(op, "sink_v", sinks[1], {kvh, ns, hd})))
    return failure();
  return success();
}

static int64_t sinkCount(OperandRange sinks) {
  if (sinks.empty())
    return 0;
  return cast<RankedTensorType>(sinks.front().getType()).getDimSize(1);
}

int64_t RingAttentionOp::getNumSinks() { return sinkCount(getSinks()); }

int64_t RingAttentionOp::getWindowForKvHead(int64_t kvHead) {
  if (std::optional<ArrayRef<int64_t>> windows = getGroupWindows())
    return (*windows)[kvHead];
  return getRing().getType().getCapacity();
}

LogicalResult RingAttentionOp::verify() {
  KvRingType ring = getRing().getType();
  int64_t kvh = ring.getKvHeads(), hd = ring.getHeadDim();
  if (failed(checkHeadGroups(*this, getNumQHeads(), kvh)) ||
      failed(checkSize(*this, "query", getQuery(), getNumQHeads() * hd,
                       "num_q_heads*head_dim")))
    return failure();
  if (!isPositive(getScoreFloor()))
    return emitOpError() << "score_floor must be > 0";
  if (failed(checkSinks(*this, getSinks(), kvh, hd)))
    return failure();
  if (std::optional<ArrayRef<int64_t>> windows = getGroupWindows()) {
    if (static_cast<int64_t>(windows->size()) != kvh)
      return emitOpError() << "group_windows has " << windows->size()
                           << " entries, expected one per KV head (" << kvh
                           << ")";
    for (auto [kvHead, window] : llvm::enumerate(*windows))
      if (window < 1 || window > ring.getCapacity())
        return emitOpError() << "group_windows[" << kvHead << "] (" << window
                             << ") must be in 1..capacity ("
                             << ring.getCapacity() << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MoE and head
//===----------------------------------------------------------------------===//

LogicalResult ResonanceRouteOp::verify() {
  auto centres = cast<RankedTensorType>(getCentres().getType());
  int64_t hidden = sizeOf(getInput());
  if (centres.getRank() != 2)
    return emitOpError() << "centres must be [num_experts, hidden]";
  int64_t experts = centres.getDimSize(0);
  if (failed(checkShape(*this, "centres", getCentres(), {experts, hidden})) ||
      failed(checkSize(*this, "bias", getBias(), experts, "one per expert")))
    return failure();
  if (Value basis = getBasis()) {
    auto shape = cast<RankedTensorType>(basis.getType()).getShape();
    if (shape.size() != 3 || shape[1] < 1)
      return emitOpError() << "basis must be [num_experts, rank >= 1, hidden] "
                              "(leave it out when rank is 0)";
    if (failed(checkShape(*this, "basis", basis, {experts, shape[1], hidden})))
      return failure();
  }
  if (Value shells = getShells())
    return checkSize(*this, "shells", shells, experts, "one per expert");
  return success();
}

LogicalResult ExpertSelectOp::verify() {
  if (getCandidates().empty())
    return emitOpError() << "needs at least one expert (num_experts >= 1)";
  for (auto [index, candidate] : llvm::enumerate(getCandidates()))
    if (candidate.getType() != getType())
      return emitOpError() << "candidate " << index << " has type "
                           << candidate.getType() << ", expected " << getType();
  return success();
}

LogicalResult ClusteredHeadOp::verify() {
  int64_t nc = getNumClusters(), cs = getClusterSize();
  if (nc < 1 || cs < 1)
    return emitOpError() << "num_clusters (" << nc << ") and cluster_size ("
                         << cs << ") must be >= 1";
  auto [rows, cols] = getMatrixShape(getRows().getType());
  if (nc * cs != rows)
    return emitOpError() << "num_clusters x cluster_size (" << nc << " x " << cs
                         << " = " << nc * cs << ") must equal the vocab ("
                         << rows << " rows)";
  if (failed(checkSize(*this, "input", getInput(), cols, "the rows' cols")) ||
      failed(checkSize(*this, "cluster_logprobs", getClusterLogprobs(), nc,
                       "one per cluster")))
    return failure();
  return checkSize(*this, "result", getResult(), rows, "the vocab");
}

//===----------------------------------------------------------------------===//
// Dory
//===----------------------------------------------------------------------===//

LogicalResult QkPrepOp::verify() {
  int64_t qh = getNumQHeads(), kvh = getNumKvHeads(), hd = getHeadDim();
  if (kvh < 1)
    return emitOpError() << "num_kv_heads (" << kvh << ") must be >= 1";
  if (failed(checkHeadGroups(*this, qh, kvh)) ||
      failed(checkHeadDim(*this, hd)))
    return failure();
  if (!isPositive(getEps()))
    return emitOpError() << "eps must be > 0";
  if (failed(checkSize(*this, "query", getQuery(), qh * hd,
                       "num_q_heads*head_dim")) ||
      failed(checkSize(*this, "key", getKey(), kvh * hd,
                       "num_kv_heads*head_dim")))
    return failure();
  return checkShape(*this, "qk_scale", getQkScale(), {qh, hd});
}

int64_t WindowAttentionOp::getNumSinks() { return sinkCount(getSinks()); }

LogicalResult WindowAttentionOp::verify() {
  KvRingType ring = getRing().getType();
  int64_t qh = getNumQHeads(), kvh = ring.getKvHeads(), hd = ring.getHeadDim();
  if (failed(checkHeadGroups(*this, qh, kvh)) ||
      failed(checkSize(*this, "query", getQuery(), qh * hd,
                       "num_q_heads*head_dim")))
    return failure();
  if (getWindow() < 1 || getWindow() > ring.getCapacity())
    return emitOpError() << "window (" << getWindow()
                         << ") must be in 1..capacity (" << ring.getCapacity()
                         << ")";
  if (!isPositive(getScale()))
    return emitOpError() << "scale must be > 0";
  if (failed(checkSinks(*this, getSinks(), kvh, hd)))
    return failure();
  if (Value far = getFar()) {
    auto field = cast<FarFieldType>(far.getType());
    if (field.getQHeads() != qh || field.getKvHeads() != kvh ||
        field.getHeadDim() != hd)
      return emitOpError() << "far field " << field
                           << " does not match num_q_heads " << qh
                           << ", kv_heads " << kvh << ", head_dim " << hd;
  } else if (getRectify()) {
    return emitOpError() << "rectify needs a far field";
  }
  return success();
}

LogicalResult SlerpResidualOp::verify() {
  if (!isPositive(getEps()))
    return emitOpError() << "eps must be > 0";
  return success();
}

LogicalResult FarFieldCaptureOp::verify() {
  FarFieldType field = getFar().getType();
  if (getStride() < 1)
    return emitOpError() << "stride (" << getStride() << ") must be >= 1";
  if (!isPositive(getScale()))
    return emitOpError() << "scale must be > 0";
  return checkSize(*this, "query", getQuery(),
                   field.getQHeads() * field.getHeadDim(), "q_heads*head_dim");
}

LogicalResult FarFieldPushOp::verify() {
  FarFieldType field = getFar().getType();
  KvRingType ring = getRing().getType();
  if (field.getKvHeads() != ring.getKvHeads() ||
      field.getHeadDim() != ring.getHeadDim())
    return emitOpError() << "far field " << field << " does not match ring "
                         << ring;
  if (getWindow() < 1 || getWindow() > ring.getCapacity())
    return emitOpError() << "window (" << getWindow()
                         << ") must be in 1..capacity (" << ring.getCapacity()
                         << ")";
  if (!isPositive(getScale()))
    return emitOpError() << "scale must be > 0";
  return success();
}
