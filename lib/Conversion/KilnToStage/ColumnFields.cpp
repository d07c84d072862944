//===- ColumnFields.cpp - Where the q8_2f column field is applied ---------===//
//
// A q8_2f matrix computes s ⊙ (Q (t ⊙ x)); `t ⊙ x` is applied by the stage
// that produces x (MODELS.md "fold"). A producer with one `fold` operand
// folds when x has exactly one reader and it is q8_2f; rmsnorm writes one
// output per distinct column field; otherwise a stage.mul makes the folded
// copy right before the reader.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;

namespace kiln::lowering {

/// The q8_2f matrix that reads `use` as its input, if any.
static kg::WeightOp quantizedReader(OpOperand &use) {
  Operation *user = use.getOwner();
  Value weight;
  if (auto matvec = dyn_cast<kg::MatVecOp>(user)) {
    if (use.getOperandNumber() != 1)
      return {};
    weight = matvec.getWeight();
  } else if (auto head = dyn_cast<kg::ClusteredHeadOp>(user)) {
    if (use.getOperandNumber() != 1)
      return {};
    weight = head.getRows();
  } else {
    return {};
  }
  auto type = dyn_cast<kg::WeightType>(weight.getType());
  if (!type || type.getFormat() != kg::WeightFormat::q8_2f)
    return {};
  return weight.getDefiningOp<kg::WeightOp>();
}

Lowering::FoldNeeds Lowering::foldNeeds(Value activation) {
  FoldNeeds needs;
  for (OpOperand &use : activation.getUses()) {
    kg::WeightOp weight = quantizedReader(use);
    if (!weight) {
      needs.plain = true;
      continue;
    }
    Value scale = colScale(weight.getName(),
                           cast<kg::WeightType>(weight.getType()));
    if (!llvm::is_contained(needs.colScales, scale))
      needs.colScales.push_back(scale);
  }
  return needs;
}

Value Lowering::singleFold(Value activation) {
  FoldNeeds needs = foldNeeds(activation);
  if (needs.plain || needs.colScales.size() != 1)
    return Value();
  Value scale = needs.colScales.front();
  folded_[{activation, scale}] = bufferOf(activation);
  return scale;
}

Value Lowering::foldedInput(Value activation, Value colScale) {
  auto it = folded_.find({activation, colScale});
  if (it != folded_.end())
    return it->second;
  Value plain = bufferOf(activation);
  int64_t size = cast<MemRefType>(plain.getType()).getNumElements();
  Value out = freshScratch(size, "plane.folded");
  OpBuilder b = dispatch("fold");
  stage::MulOp::create(b, activation.getLoc(), plain, colScale, out, Value());
  folded_[{activation, colScale}] = out;
  return out;
}

} // namespace kiln::lowering
