//===- LowerMoe.cpp - Embryo's routed expert: router + expert mat-vecs ----===//
//
// kiln.resonance_route becomes stage.router, which writes the chosen expert
// to a one-word scratch buffer. The expert's matrices (kiln.expert_select of
// E declared weights) become one weight buffer holding all E candidates,
// stacked row-wise; a stage.matvec with that word as its `expert` operand
// reads the chosen one's rows (docs/stages.md, "Routed experts"). The
// q8_2f column field depends on the expert, so the mat-vec applies it
// itself (`col_scale`) instead of the producer folding it.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace kiln::lowering {

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// "layers.1.moe.experts.*.gate" for the candidates "...experts.<e>.gate":
/// the stacked buffer's name (readable, and one key per stack).
static std::string stackName(ArrayRef<std::string> candidates) {
  StringRef first = candidates.front();
  StringRef last = candidates.back();
  size_t prefix = 0;
  while (prefix < first.size() && prefix < last.size() &&
         first[prefix] == last[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < first.size() - prefix && suffix < last.size() - prefix &&
         first[first.size() - 1 - suffix] == last[last.size() - 1 - suffix])
    ++suffix;
  if (candidates.size() == 1)
    return first.str();
  return (first.take_front(prefix) + "*" + first.take_back(suffix)).str();
}

Value Lowering::expertStack(ArrayRef<std::string> candidates,
                            kg::WeightType type, StringRef part) {
  std::string name = stackName(candidates);
  if (!part.empty())
    name += "." + part.str();
  // Keyed by every candidate: two stacks may share a display name (@a, @b
  // and @c, @d are both "*").
  std::string key = "stack:" + llvm::join(candidates, ",") + ":" + part.str();
  auto it = weightBuffers_.find(key);
  if (it != weightBuffers_.end())
    return it->second;
  int64_t experts = static_cast<int64_t>(candidates.size());
  int64_t rows = type.getRows(), cols = type.getCols();
  LogicalBuffer buffer{BufferKind::Weight, name, {}};
  MemRefType memref;
  if (part.empty()) {
    bool half = type.getFormat() == kg::WeightFormat::f16;
    int64_t groups = ceilDiv(cols, half ? 8 : 16);
    // Expert e's rows start at row e·R: its tensor lands e·R·groups·16
    // bytes in, each file row padded to whole 16-byte groups.
    for (auto [e, weight] : llvm::enumerate(candidates)) {
      TensorPlacement t{half ? weight : weight + ".q",
                        half ? "F16" : "I8",
                        {rows, cols},
                        half ? "F16RowMajor" : "I8RowMajor",
                        groups * 16};
      t.byteOffset = static_cast<int64_t>(e) * rows * groups * 16;
      buffer.tensors.push_back(std::move(t));
    }
    memref = packedBuffer(experts * rows, groups);
  } else {
    int64_t size = part == "row_scale" ? rows : cols;
    for (auto [e, weight] : llvm::enumerate(candidates)) {
      TensorPlacement t{weight + "." + part.str(), "F32",
                        {size}, "F32", 0};
      t.byteOffset = static_cast<int64_t>(e) * size * 4;
      buffer.tensors.push_back(std::move(t));
    }
    memref = f32Buffer({experts * size});
  }
  Value value = addArgument(memref, std::move(buffer));
  weightBuffers_[key] = value;
  return value;
}

LogicalResult Lowering::lowerRoute(kg::ResonanceRouteOp op) {
  for (Operation *user : op.getExpert().getUsers())
    if (!isa<kg::ExpertSelectOp>(user))
      return refuse(op, "the selected expert lives in a device word that "
                        "only stage.matvec reads: it may feed only "
                        "kiln.expert_select, not '")
             << user->getName() << "'";
  auto tensor = [&](Value v) -> Value {
    if (!v)
      return Value();
    auto weight = v.getDefiningOp<kg::WeightOp>();
    if (!weight)
      return Value();
    return tensorWeight(weight.getName(), cast<RankedTensorType>(v.getType()));
  };
  Value centres = tensor(op.getCentres()), bias = tensor(op.getBias());
  Value basis = tensor(op.getBasis()), shells = tensor(op.getShells());
  if (!centres || !bias || (op.getBasis() && !basis) ||
      (op.getShells() && !shells))
    return refuse(op, "stage.router reads centres, bias, basis and shells "
                      "from declared weights");
  Value input = bufferOf(op.getInput());
  Value selected =
      addArgument(MemRefType::get({1}, builder_.getI32Type()),
                  {BufferKind::Scratch, "plane.expert", {}});
  expertWords_[op.getExpert()] = selected;
  OpBuilder b = dispatch("router");
  stage::RouterOp::create(b, op.getLoc(), input, centres, basis, bias, shells,
                          selected);
  return success();
}

LogicalResult Lowering::lowerExpertSelect(kg::ExpertSelectOp op) {
  for (OpOperand &use : op.getResult().getUses())
    if (!isa<kg::MatVecOp>(use.getOwner()) || use.getOperandNumber() != 0)
      return refuse(op, "the chosen matrix is read by stage.matvec (expert "
                        "operand): it may feed only kiln.matvec's weight, "
                        "not '")
             << use.getOwner()->getName() << "'";
  // Emitted with its mat-vec (lowerExpertMatVec).
  return success();
}

LogicalResult Lowering::lowerExpertMatVec(kg::MatVecOp op,
                                          kg::ExpertSelectOp select) {
  auto word = expertWords_.find(select.getExpert());
  if (word == expertWords_.end())
    return refuse(op, "the expert index must come from kiln.resonance_route "
                      "(stage.router writes it)");
  SmallVector<std::string> candidates;
  for (Value candidate : select.getCandidates()) {
    auto weight = candidate.getDefiningOp<kg::WeightOp>();
    if (!weight)
      return refuse(op, "the routed expert's candidates must be declared "
                        "matrices (they are stacked in one weight buffer)");
    candidates.push_back(weight.getName().str());
  }
  auto type = cast<kg::WeightType>(select.getResult().getType());
  bool q8 = type.getFormat() == kg::WeightFormat::q8_2f;
  Value w = expertStack(candidates, type, "");
  Value rowScale = q8 ? expertStack(candidates, type, "row_scale") : Value();
  Value colScale = q8 ? expertStack(candidates, type, "col_scale") : Value();
  // Plain input: the column field is the chosen expert's, applied inside.
  Value input = bufferOf(op.getInput());
  Value out = bufferOf(op.getResult());
  Value fold = singleFold(op.getResult());
  OpBuilder b = dispatch(stackName(candidates));
  stage::MatVecOp::create(
      b, op.getLoc(), w, word->second, rowScale, colScale, input, /*norm=*/Value(),
      /*slerp_update=*/Value(), /*slerp_alpha=*/Value(), /*up=*/Value(), out, fold,
      /*hidden_out=*/Value(),
      q8 ? stage::MatrixFormat::q8_2f : stage::MatrixFormat::f16, stage::Activation::none,
      /*split_k=*/1, /*accumulate=*/false, static_cast<uint64_t>(candidates.size()),
      /*norm_eps=*/FloatAttr(), /*norm_zero_centered=*/false, /*slerp_eps=*/FloatAttr());
  return success();
}

} // namespace kiln::lowering
