//===- KilnModelOps.cpp - verifiers of the kiln model structure ----------===//
//
// Model, declarations, step, symbol uses and Dory's loop: the ops that give a
// model its shape. Math ops are verified in KilnOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;
using namespace kiln::graph;

/// The block's last op, or null when it is empty: parsed IR may lack a
/// terminator, and Block::getTerminator() assumes one (mlir_parser_fuzzer
/// found the heap overflow).
static Operation *lastOp(Block &block) { return block.empty() ? nullptr : &block.back(); }

//===----------------------------------------------------------------------===//
// ModelOp
//===----------------------------------------------------------------------===//

StepOp ModelOp::getStep() {
  for (Operation &op : getBody().front())
    if (auto step = dyn_cast<StepOp>(op))
      return step;
  return nullptr;
}

LogicalResult ModelOp::verify() {
  // docs/config.md: any hidden size >= 1 (matrix rows are padded to whole
  // 16-byte groups, so no kernel needs a multiple of anything).
  if (getHidden() < 1)
    return emitOpError() << "hidden (" << getHidden() << ") must be >= 1";
  if (getIntermediate() < 1)
    return emitOpError() << "intermediate (" << getIntermediate()
                         << ") must be >= 1";
  if (getVocab() < 2)
    return emitOpError() << "vocab (" << getVocab() << ") must be >= 2";
  if (!(getEps().convertToDouble() > 0.0))
    return emitOpError() << "eps (" << getEps().convertToDouble()
                         << ") must be > 0";
  int numSteps = 0;
  for (Operation &op : getBody().front()) {
    if (isa<StepOp>(op)) {
      ++numSteps;
      continue;
    }
    if (!isa<WeightDeclOp, StateDeclOp>(op))
      return op.emitOpError()
             << "is not allowed in a kiln.model body (only kiln.weight_decl, "
                "kiln.state_decl and one kiln.step)";
  }
  if (numSteps != 1)
    return emitOpError() << "must hold exactly one kiln.step, found "
                         << numSteps;
  return success();
}

//===----------------------------------------------------------------------===//
// Declarations and their uses
//===----------------------------------------------------------------------===//

LogicalResult WeightDeclOp::verify() {
  Type type = getType();
  if (isa<WeightType>(type) || isTableType(type))
    return success();
  return emitOpError() << "type must be a !kiln.weight matrix or a static f32 "
                          "tensor, got "
                       << type;
}

LogicalResult StateDeclOp::verify() {
  if (isStateType(getType()))
    return success();
  return emitOpError() << "type must be a kiln state type, got " << getType();
}

LogicalResult WeightOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto decl =
      symbolTable.lookupNearestSymbolFrom<WeightDeclOp>(*this, getNameAttr());
  if (!decl)
    return emitOpError() << "'" << getName()
                         << "' does not name a kiln.weight_decl";
  if (decl.getType() != getType())
    return emitOpError() << "type " << getType() << " differs from @"
                         << getName() << "'s declared type " << decl.getType();
  return success();
}

LogicalResult StateOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto decl =
      symbolTable.lookupNearestSymbolFrom<StateDeclOp>(*this, getNameAttr());
  if (!decl)
    return emitOpError() << "'" << getName()
                         << "' does not name a kiln.state_decl";
  if (decl.getType() != getType())
    return emitOpError() << "type " << getType() << " differs from @"
                         << getName() << "'s declared type " << decl.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// StepOp
//===----------------------------------------------------------------------===//

void StepOp::getAsmBlockArgumentNames(Region &region,
                                      OpAsmSetValueNameFn setNameFn) {
  static const char *const names[] = {"token", "position", "top_p"};
  if (region.empty())
    return;
  Block &entry = region.front();
  for (auto [index, arg] : llvm::enumerate(entry.getArguments()))
    if (index < 3)
      setNameFn(arg, names[index]);
}

LogicalResult StepOp::verify() {
  Block &entry = getBody().front();
  unsigned numArgs = entry.getNumArguments();
  if (numArgs < 2 || numArgs > 3 ||
      !entry.getArgument(0).getType().isIndex() ||
      !entry.getArgument(1).getType().isIndex() ||
      (numArgs == 3 && !entry.getArgument(2).getType().isF32()))
    return emitOpError() << "body must take (token: index, position: index) "
                            "or (token: index, position: index, top_p: f32)";
  auto ret = dyn_cast_or_null<ReturnOp>(lastOp(entry));
  if (!ret)
    return emitOpError() << "body must end in kiln.return";
  // The return is verified after this op: its operand's type is not known good yet.
  if (!isActivationType(ret.getLogprobs().getType()))
    return ret.emitOpError() << "returns " << ret.getLogprobs().getType()
                             << ", expected a 1-D static f32 tensor of log-probs";
  auto model = (*this)->getParentOfType<ModelOp>();
  int64_t size = getElementCount(ret.getLogprobs().getType());
  if (size != model.getVocab())
    return ret.emitOpError() << "returns " << size
                             << " log-probs, but the model's vocab is "
                             << model.getVocab();
  return success();
}

//===----------------------------------------------------------------------===//
// Dory's loop
//===----------------------------------------------------------------------===//

// The single value a loop region yields, or null after reporting why not.
static Value getYieldedValue(LoopOp loop, Region &region, StringRef name) {
  auto yield = dyn_cast_or_null<YieldOp>(lastOp(region.front()));
  if (!yield || yield.getValues().size() != 1) {
    loop.emitOpError() << name << " region must yield exactly one value";
    return nullptr;
  }
  return yield.getValues().front();
}

void LoopOp::getAsmBlockArgumentNames(Region &region,
                                      OpAsmSetValueNameFn setNameFn) {
  if (region.empty())
    return;
  Block &entry = region.front();
  if (entry.getNumArguments() >= 1)
    setNameFn(entry.getArgument(0), "h");
  if (entry.getNumArguments() == 2)
    setNameFn(entry.getArgument(1), "pass");
}

LogicalResult LoopOp::verifyRegions() {
  Type hType = getInput().getType();
  if (getPasses() < 1)
    return emitOpError() << "passes (" << getPasses() << ") must be >= 1";
  int64_t hidden = getState().getType().getHidden();
  if (getElementCount(hType) != hidden)
    return emitOpError() << "input has " << getElementCount(hType)
                         << " values but the loop state holds rows of "
                         << hidden;

  Block &body = getBody().front();
  if (body.getNumArguments() != 2 || body.getArgument(0).getType() != hType ||
      !body.getArgument(1).getType().isIndex())
    return emitOpError() << "body must take (h: " << hType << ", pass: index)";
  Value bodyOut = getYieldedValue(*this, getBody(), "body");
  if (!bodyOut)
    return failure();
  if (bodyOut.getType() != hType)
    return emitOpError() << "body yields " << bodyOut.getType()
                         << ", expected " << hType;

  std::optional<APFloat> threshold = getExitThreshold();
  bool hasReadout = !getReadout().empty();
  if (threshold.has_value() != hasReadout)
    return emitOpError() << "has a readout region exactly when it has an "
                            "exit_threshold";
  if (!threshold)
    return success();
  double value = threshold->convertToDouble();
  if (!(value > 0.0 && value <= 1.0))
    return emitOpError() << "exit_threshold (" << value
                         << ") must be in (0, 1]";
  if (!getReadout().hasOneBlock())
    return emitOpError() << "readout region must have one block";
  Block &readout = getReadout().front();
  if (readout.getNumArguments() != 1 ||
      readout.getArgument(0).getType() != hType)
    return emitOpError() << "readout must take (h: " << hType << ")";
  Value prob = getYieldedValue(*this, getReadout(), "readout");
  if (!prob)
    return failure();
  if (!prob.getType().isF32())
    return emitOpError() << "readout must yield an f32 probability, got "
                         << prob.getType();
  return success();
}

LogicalResult MixOp::verify() {
  int64_t hidden = getState().getType().getHidden();
  if (getElementCount(getInput().getType()) != hidden)
    return emitOpError() << "input has " << getElementCount(getInput().getType())
                         << " values but the loop state holds rows of "
                         << hidden;
  if (!(getEps().convertToDouble() > 0.0))
    return emitOpError() << "eps must be > 0";
  return success();
}
