//===- AbsorbActivations.cpp - silu_mul into the mat-vec that reads it ----===//
//
// The seeds compute the gated FFN's activation inside a mat-vec's threads
// rather than in a kernel of its own; stage.matvec can read silu(g) ⊙ u
// itself (activation = silu_mul). This pass makes that trade where the cost
// model says the recomputation per row costs less than a boundary and a pass
// over memory (Passes.td has the rules).
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Stage/Transforms/Passes.h"

#include "kiln/Cost/CostModel.h"
#include "kiln/Dialect/Stage/IR/StageFusion.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"
#include "kiln/Dialect/Stage/Transforms/StageCostAnalysis.h"
#include "kiln/Dialect/Stage/Transforms/TargetSelection.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace kiln::stage {

#define GEN_PASS_DEF_KILNABSORBACTIVATIONS
#include "kiln/Dialect/Stage/Transforms/Passes.h.inc"

namespace {

/// The only stage of `d`, if it has exactly one.
Operation *soleStage(DispatchOp d) {
  Block &body = d.getBody().front();
  return llvm::hasSingleElement(body) ? &body.front() : nullptr;
}

/// Whether `v` is a function argument the memory plan calls scratch: only
/// scratch may be left unwritten (state, readback and weights are read later
/// or from outside).
bool isScratch(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return false;
  auto func = dyn_cast_or_null<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!func)
    return false;
  auto dict = func.getArgAttrOfType<DictionaryAttr>(arg.getArgNumber(), "kiln.buffer");
  // Hand-written stage modules (lit) carry no plan: any argument is scratch.
  if (!dict)
    return true;
  auto kind = dict.getAs<StringAttr>("kind");
  return kind && kind.getValue() == "scratch";
}

/// The one stage other than `producer` that uses `v`, if exactly one does.
/// Other buffers in v's slot of the memory plan live at other times.
Operation *soleReader(FunctionOpInterface func, Operation *producer, Value v) {
  Operation *reader = nullptr;
  bool many = false;
  func->walk([&](Operation *op) {
    if (op == producer || !isa_and_nonnull<DispatchOp>(op->getParentOp()))
      return;
    for (Value operand : op->getOperands())
      if (operand == v) {
        many |= reader && reader != op;
        reader = op;
      }
  });
  return many ? nullptr : reader;
}

/// Whether a dispatch strictly between `from` and `to` (same block) writes
/// any of `values`; any other op in between counts as a writer.
bool writtenBetween(DispatchOp from, DispatchOp to, ArrayRef<Value> values) {
  for (Operation *op = from->getNextNode(); op && op != to; op = op->getNextNode()) {
    auto d = dyn_cast<DispatchOp>(op);
    if (!d)
      return true;
    for (Operation &stage : d.getBody().front())
      for (Value written : writtenBuffers(&stage))
        for (Value v : values)
          if (v && buffersMayAlias(written, v))
            return true;
  }
  return false;
}

/// Tries to fold the silu_mul of `act` into its reader; true on success.
bool absorb(DispatchOp act, const cost::CostModel &model) {
  auto silu = dyn_cast_or_null<SiluMulOp>(soleStage(act));
  if (!silu || act.getSkipFlag())
    return false;
  Value g = silu->getOperand(0), u = silu->getOperand(1), z = silu->getOperand(2);
  Value field = silu->getNumOperands() > 3 ? silu->getOperand(3) : Value();
  if (!isScratch(z))
    return false;
  auto func = act->getParentOfType<FunctionOpInterface>();
  auto matvec = dyn_cast_or_null<MatVecOp>(soleReader(func, silu, z));
  if (!matvec || matvec.getInput() != z || matvec.getUp() || matvec.getColScale() ||
      matvec.getActivation() != Activation::none || matvec.getWeight() == z)
    return false;
  auto down = dyn_cast<DispatchOp>(matvec->getParentOp());
  if (!down || !soleStage(down) || down->getBlock() != act->getBlock() ||
      !act->isBeforeInBlock(down) || down.getSkipFlag())
    return false;
  // The q8_2f column field rides on the activation; an f16 mat-vec has no
  // col_scale to carry it.
  if (field && matvec.getFormat() != MatrixFormat::q8_2f)
    return false;
  if (writtenBetween(act, down, {g, u, field}))
    return false;

  OpBuilder b(matvec);
  auto activated = cast<MatVecOp>(b.clone(*matvec.getOperation()));
  activated.getInputMutable().assign(g);
  activated.getUpMutable().assign(u);
  if (field)
    activated.getColScaleMutable().assign(field);
  activated.setActivation(Activation::silu_mul);

  auto micros = [&](Operation *op) {
    cost::StageCost c = stageCostOf(op);
    return model.stageMicros(c, c.workgroups);
  };
  double before = micros(silu) + model.target().boundaryMicros + micros(matvec);
  double after = micros(activated);
  if (after >= before) {
    activated->erase();
    return false;
  }
  matvec->erase();
  act->erase();
  return true;
}

struct KilnAbsorbActivationsPass
    : impl::KilnAbsorbActivationsBase<KilnAbsorbActivationsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    io::Expected<cost::TargetDesc> target =
        selectTarget(module, {targetFile, targetName, targetDir});
    if (!target) {
      module.emitError("kiln-absorb-activations: ") << target.error().message();
      return signalPassFailure();
    }
    std::unique_ptr<cost::CostModel> model = cost::createAnalyticalCostModel(*target);
    SmallVector<DispatchOp> dispatches;
    module.walk([&](DispatchOp d) { dispatches.push_back(d); });
    for (DispatchOp d : dispatches)
      absorb(d, *model);
  }
};

} // namespace
} // namespace kiln::stage
