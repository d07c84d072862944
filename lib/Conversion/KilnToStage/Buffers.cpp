//===- Buffers.cpp - Logical buffers: the arguments of @decode ------------===//
//
// Every buffer a stage touches is one argument of @decode, typed exactly as
// the stages expect (docs/stages.md): f32 activations, matrices packed in
// 16-byte groups with zero-padded rows, q8_2f scales as f32 vectors. Weights
// and state are made once per symbol, activations once per SSA value.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;

namespace kiln::lowering {


static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

Value Lowering::addArgument(Type type, LogicalBuffer buffer) {
  if (buffer.rows == 0)
    buffer.rows = buffer.kind == BufferKind::Scratch ? rows_ : 1;
  buffers_.push_back(std::move(buffer));
  return func_.getBody().front().addArgument(type, model_.getLoc());
}

MemRefType Lowering::f32Buffer(ArrayRef<int64_t> shape) {
  return MemRefType::get(shape, builder_.getF32Type());
}

MemRefType Lowering::packedBuffer(int64_t rows, int64_t groups) {
  return MemRefType::get({rows, groups},
                         VectorType::get({4}, builder_.getI32Type()));
}

Value Lowering::tensorWeight(StringRef name, RankedTensorType type) {
  auto it = weightBuffers_.find(name);
  if (it != weightBuffers_.end())
    return it->second;
  LogicalBuffer buffer{BufferKind::Weight, name.str(), {}};
  buffer.tensors.push_back({name.str(), "F32",
                            SmallVector<int64_t>(type.getShape()), "F32", 0});
  Value value = addArgument(f32Buffer(type.getShape()), std::move(buffer));
  weightBuffers_[name] = value;
  return value;
}

LogicalResult Lowering::sinkBuffers(Operation *op, ValueRange sinks, Value &sinkK,
                                    Value &sinkV) {
  sinkK = sinkV = Value();
  if (sinks.empty())
    return success();
  auto k = sinks[0].getDefiningOp<kg::WeightOp>();
  auto v = sinks[1].getDefiningOp<kg::WeightOp>();
  if (!k || !v)
    return refuse(op, "sinks must be declared weights");
  sinkK = tensorWeight(k.getName(), cast<RankedTensorType>(k.getType()));
  sinkV = tensorWeight(v.getName(), cast<RankedTensorType>(v.getType()));
  return success();
}

Value Lowering::matrixWeight(StringRef name, kg::WeightType type) {
  auto it = weightBuffers_.find(name);
  if (it != weightBuffers_.end())
    return it->second;
  bool half = type.getFormat() == kg::WeightFormat::f16;
  int64_t groups = ceilDiv(type.getCols(), half ? 8 : 16);
  LogicalBuffer buffer{BufferKind::Weight, name.str(), {}};
  // Rows are padded to whole 16-byte groups: the loader places each file row
  // `groups * 16` bytes apart and zero-fills the rest.
  buffer.tensors.push_back({half ? name.str() : (name + ".q").str(),
                            half ? "F16" : "I8",
                            {type.getRows(), type.getCols()},
                            half ? "F16RowMajor" : "I8RowMajor",
                            groups * 16});
  Value value =
      addArgument(packedBuffer(type.getRows(), groups), std::move(buffer));
  weightBuffers_[name] = value;
  return value;
}

Value Lowering::rowScale(StringRef name, kg::WeightType type) {
  std::string full = (name + ".row_scale").str();
  return tensorWeight(full, RankedTensorType::get({type.getRows()},
                                                  builder_.getF32Type()));
}

Value Lowering::colScale(StringRef name, kg::WeightType type) {
  std::string full = (name + ".col_scale").str();
  return tensorWeight(full, RankedTensorType::get({type.getCols()},
                                                  builder_.getF32Type()));
}

Value Lowering::stateBuffer(StringRef name, Type type, StringRef part) {
  std::string full = part.empty() ? name.str() : (name + "." + part).str();
  auto it = stateBuffers_.find(full);
  if (it != stateBuffers_.end())
    return it->second;
  MemRefType memref;
  if (auto ring = dyn_cast<kg::KvRingType>(type))
    memref = f32Buffer(
        {ring.getKvHeads(), ringCapacity(ring), ring.getHeadDim()});
  else if (auto gdn = dyn_cast<kg::GdnStateType>(type))
    memref = f32Buffer({gdn.getVHeads(), gdn.getKDim(), gdn.getVDim()});
  else if (auto conv = dyn_cast<kg::ConvRingType>(type))
    memref = f32Buffer({conv.getTaps() - 1, conv.getChannels()});
  else if (auto loop = dyn_cast<kg::LoopStateType>(type))
    memref = f32Buffer({loop.getHidden()});
  else if (auto far = dyn_cast<kg::FarFieldType>(type)) {
    // Per KV head (docs/stages.md, "State of one layer's far field").
    int64_t kvh = far.getKvHeads(), m = far.getLandmarks();
    int64_t hd = far.getHeadDim();
    if (part == "landmarks")
      memref = f32Buffer({kvh, m, hd});
    else if (part == "inverse")
      memref = f32Buffer({kvh, m, m});
    else if (part == "sums")
      memref = f32Buffer({kvh, m, hd + 2});
    else
      memref = MemRefType::get({3 * kvh}, builder_.getI32Type());
  } else
    return Value();
  Value value = addArgument(memref, {BufferKind::State, full, {}});
  stateBuffers_[full] = value;
  return value;
}

Value Lowering::freshScratch(ArrayRef<int64_t> shape, StringRef name) {
  return addArgument(f32Buffer(shape), {BufferKind::Scratch, name.str(), {}});
}

Value Lowering::scoresBuffer(Value query, Value ring, Value sinks, int64_t widestWindow) {
  auto ringType = cast<MemRefType>(ring.getType());
  int64_t hd = ringType.getDimSize(2);
  int64_t heads = cast<MemRefType>(query.getType()).getNumElements() / hd;
  int64_t keys = std::min(widestWindow, ringType.getDimSize(1)) +
                 (sinks ? cast<MemRefType>(sinks.getType()).getDimSize(1) : 0);
  return freshScratch({heads, keys}, "plane.attention.scores");
}

/// A readable name for the buffer of an activation: the weight a matvec
/// reads, else the producing op.
static std::string activationName(Value activation) {
  Operation *def = activation.getDefiningOp();
  if (!def)
    return "plane.h";
  if (auto matvec = dyn_cast<kg::MatVecOp>(def))
    if (auto weight = matvec.getWeight().getDefiningOp<kg::WeightOp>())
      return ("plane." + weight.getName() + ".out").str();
  std::string name = def->getName().stripDialect().str();
  if (def->getNumResults() > 1)
    name += "." + std::to_string(cast<OpResult>(activation).getResultNumber());
  return "plane." + name;
}

Value Lowering::bufferOf(Value activation) {
  auto it = activations_.find(activation);
  if (it != activations_.end())
    return it->second;
  auto type = cast<RankedTensorType>(activation.getType());
  // A tensor weight read as an operand (head_scale into kiln.mul, say) is
  // the weight's own buffer, bound from the file, never a scratch plane.
  if (auto weight = activation.getDefiningOp<kg::WeightOp>())
    return tensorWeight(weight.getName(), type);
  // The step's result lands in the readback buffer, as log-probs; a
  // log_softmax right before the return is left to the host (logits). So
  // is the early-exit read-out's (log_softmax then max_prob): on an exit its
  // logits are the call's result.
  for (Operation *user : activation.getUsers()) {
    if (isa<kg::ReturnOp>(user))
      return activations_[activation] = readbackBuffer(type, "LogProbs");
    if (auto softmax = dyn_cast<kg::LogSoftmaxOp>(user))
      for (Operation *next : softmax.getResult().getUsers())
        if (isa<kg::ReturnOp, kg::MaxProbOp>(next))
          return activations_[activation] = readbackBuffer(type, "Logits");
  }
  Value buffer = addArgument(f32Buffer(type.getShape()),
                             {BufferKind::Scratch, activationName(activation), {},
                              oneRow_.contains(activation) ? 1 : 0});
  activations_[activation] = buffer;
  return buffer;
}

Value Lowering::readbackBuffer(RankedTensorType type, StringRef values) {
  Block &entry = func_.getBody().front();
  if (readbackArg_ >= 0) {
    // lowerReturn refuses two writers that disagree on what it holds.
    if (readbackValues_ != values)
      readbackConflict_ = true;
    return entry.getArgument(readbackArg_);
  }
  readbackValues_ = values.str();
  // A multi-row call reads back its last row's values only.
  Value buffer = addArgument(f32Buffer(type.getShape()),
                             {BufferKind::Readback, "readback", {}, 1});
  readbackArg_ = cast<BlockArgument>(buffer).getArgNumber();
  return buffer;
}

void Lowering::alias(Value activation, Value buffer) {
  activations_[activation] = buffer;
}

} // namespace kiln::lowering
