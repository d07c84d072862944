//===- AbsorbIntoMatVec.cpp - Elementwise neighbours into a mat-vec -------===//
//
// The seeds compute the gated FFN's activation inside a mat-vec's threads
// rather than in a kernel of its own; stage.matvec can read silu(g) ⊙ u
// itself (activation = silu_mul), normalise its input (norm) and scale its
// rows by a vector (fold). This pass makes those trades where the cost model
// says they pay (Passes.td has the rules).
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Stage/Transforms/Passes.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"

#include "kiln/Cost/CostModel.h"
#include "kiln/Dialect/Stage/IR/StageFusion.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"
#include "kiln/Dialect/Stage/Transforms/ScratchSlots.h"
#include "kiln/Dialect/Stage/Transforms/StageCostAnalysis.h"
#include "kiln/Dialect/Stage/Transforms/TargetSelection.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace kiln::stage {

#define GEN_PASS_DEF_KILNABSORBINTOMATVEC
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
  BufferAttr buffer = bufferAttrOf(func, arg.getArgNumber());
  // Hand-written stage modules (lit) carry no plan: any argument is scratch.
  return !buffer || buffer.getKind() == BufferKind::Scratch;
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

/// Whether a stage of a dispatch strictly between `from` and `to` (same
/// block) satisfies `hit`; any op in between that is no dispatch counts too.
bool anyStageBetween(DispatchOp from, DispatchOp to,
                     llvm::function_ref<bool(Operation *)> hit) {
  for (Operation *op = from->getNextNode(); op && op != to; op = op->getNextNode()) {
    auto d = dyn_cast<DispatchOp>(op);
    if (!d)
      return true;
    for (Operation &stage : d.getBody().front())
      if (hit(&stage))
        return true;
  }
  return false;
}

bool writes(Operation *stage, Value v) {
  return v && llvm::any_of(writtenBuffers(stage),
                           [&](Value written) { return buffersMayAlias(written, v); });
}

/// The estimate of `stage` alone on its own grid.
double aloneMicros(const cost::CostModel &model, Operation *stage) {
  cost::StageCost c = stageCostOf(stage);
  return model.stageMicros(c, c.workgroups);
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
  if (anyStageBetween(act, down, [&](Operation *stage) {
        return writes(stage, g) || writes(stage, u) || writes(stage, field);
      }))
    return false;

  OpBuilder b(matvec);
  auto activated = cast<MatVecOp>(b.clone(*matvec.getOperation()));
  activated.getInputMutable().assign(g);
  activated.getUpMutable().assign(u);
  if (field)
    activated.getColScaleMutable().assign(field);
  activated.setActivation(Activation::silu_mul);

  double before = aloneMicros(model, silu) + model.target().boundaryMicros +
                  aloneMicros(model, matvec);
  if (aloneMicros(model, activated) >= before) {
    activated->erase();
    return false;
  }
  matvec->erase();
  act->erase();
  return true;
}

/// Tries to fold `mul(y, s)`, y a mat-vec's output read by nothing else,
/// into that mat-vec as `fold(s)` writing the mul's output; true on success.
bool absorbScale(DispatchOp scale, const cost::CostModel &model) {
  auto mul = dyn_cast_or_null<MulOp>(soleStage(scale));
  if (!mul || scale.getSkipFlag() || mul->getNumOperands() > 3)
    return false;
  auto func = scale->getParentOfType<FunctionOpInterface>();
  for (unsigned side : {0u, 1u}) {
    Value y = mul->getOperand(side), s = mul->getOperand(1 - side), out = mul->getOperand(2);
    if (y == s || !isScratch(y))
      continue;
    // The mat-vec writing y: the last single-stage dispatch before `scale`.
    MatVecOp matvec;
    DispatchOp producer;
    for (Operation *op = scale->getPrevNode(); op && !matvec; op = op->getPrevNode()) {
      auto d = dyn_cast<DispatchOp>(op);
      if (!d)
        break;
      auto mv = dyn_cast_or_null<MatVecOp>(soleStage(d));
      if (mv && mv.getOut() == y) {
        matvec = mv;
        producer = d;
      }
    }
    if (!matvec || matvec.getFold() || matvec.getSplitK() != 1 || matvec.getAccumulate() ||
        producer.getSkipFlag() || soleReader(func, matvec, y) != mul.getOperation())
      continue;
    // The product is now written, and s read, where the mat-vec runs: nothing
    // in between may touch the output's memory or write s.
    bool clash = anyStageBetween(producer, scale, [&](Operation *stage) {
      return writes(stage, s) || llvm::any_of(stage->getOperands(), [&](Value v) {
               return buffersMayAlias(v, out);
             });
    });
    if (clash || buffersMayAlias(out, matvec.getInput()) || buffersMayAlias(out, matvec.getWeight()))
      continue;
    double before = aloneMicros(model, matvec) + model.target().boundaryMicros +
                    aloneMicros(model, mul);
    OpBuilder b(matvec);
    auto folded = cast<MatVecOp>(b.clone(*matvec.getOperation()));
    folded.getOutMutable().assign(out);
    folded.getFoldMutable().assign(s);
    if (aloneMicros(model, folded) >= before) {
      folded->erase();
      continue;
    }
    matvec->erase();
    scale->erase();
    return true;
  }
  return false;
}

/// Tries to fold the rmsnorm of `norm` into the mat-vecs that read its
/// outputs: each then reads the residual and normalises it itself
/// (`norm`), the output's column field becoming its `col_scale`; true on
/// success.
bool absorbNorm(DispatchOp normDispatch, const cost::CostModel &model) {
  auto rms = dyn_cast_or_null<RMSNormOp>(soleStage(normDispatch));
  if (!rms || normDispatch.getSkipFlag() || rms.getPartials())
    return false;
  auto func = normDispatch->getParentOfType<FunctionOpInterface>();
  Value residual = rms.getResidual(), weight = rms.getWeight();
  // Every reader of every output is a plain mat-vec of its own dispatch,
  // after the norm in the same block, with nothing in between writing the
  // residual, the weight or the field.
  struct Reader {
    MatVecOp matvec;
    Value field;
  };
  SmallVector<Reader> readers;
  for (auto [index, out] : llvm::enumerate(rms.getOuts())) {
    if (!isScratch(out))
      return false;
    Value field = rms.getFolds().empty() ? Value() : rms.getFolds()[index];
    bool ok = true;
    func->walk([&](Operation *op) {
      if (op == rms.getOperation() || !isa_and_nonnull<DispatchOp>(op->getParentOp()) ||
          !llvm::is_contained(op->getOperands(), out))
        return;
      auto matvec = dyn_cast<MatVecOp>(op);
      auto dispatch = matvec ? dyn_cast<DispatchOp>(matvec->getParentOp()) : DispatchOp();
      if (!matvec || matvec.getInput() != out || matvec.getWeight() == out ||
          matvec.getOut() == out || matvec.getFold() == out || matvec.getUp() ||
          buffersMayAlias(matvec.getOut(), residual) ||
          buffersMayAlias(matvec.getOut(), weight) ||
          matvec.getNorm() || matvec.getColScale() || matvec.getNumExperts() > 1 ||
          matvec.getActivation() != Activation::none ||
          (field && matvec.getFormat() != MatrixFormat::q8_2f) || !dispatch ||
          !soleStage(dispatch) || dispatch.getSkipFlag() ||
          dispatch->getBlock() != normDispatch->getBlock() ||
          !normDispatch->isBeforeInBlock(dispatch) ||
          anyStageBetween(normDispatch, dispatch, [&](Operation *stage) {
            return writes(stage, residual) || writes(stage, weight) || writes(stage, field);
          })) {
        ok = false;
        return;
      }
      // The same buffer listed as two outputs: one rewrite, one field.
      for (Reader &r : readers)
        if (r.matvec == matvec) {
          ok &= r.field == field;
          return;
        }
      readers.push_back({matvec, field});
    });
    if (!ok)
      return false;
  }
  if (readers.empty())
    return false;

  double before = aloneMicros(model, rms) + model.target().boundaryMicros;
  double after = 0;
  SmallVector<MatVecOp> normed;
  for (Reader &r : readers) {
    OpBuilder b(r.matvec);
    auto n = cast<MatVecOp>(b.clone(*r.matvec.getOperation()));
    n.getInputMutable().assign(residual);
    n.getNormMutable().assign(weight);
    n.setNormEpsAttr(rms.getEpsAttr());
    n.setNormZeroCentered(rms.getZeroCentered());
    if (r.field)
      n.getColScaleMutable().assign(r.field);
    before += aloneMicros(model, r.matvec);
    after += aloneMicros(model, n);
    normed.push_back(n);
  }
  if (after >= before) {
    for (MatVecOp n : normed)
      n->erase();
    return false;
  }
  for (Reader &r : readers)
    r.matvec->erase();
  normDispatch->erase();
  return true;
}

struct KilnAbsorbIntoMatVecPass
    : impl::KilnAbsorbIntoMatVecBase<KilnAbsorbIntoMatVecPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    io::Expected<cost::TargetDesc> target =
        selectTarget(module, {targetFile, targetName, targetDir});
    if (!target) {
      module.emitError("kiln-absorb-into-matvec: ") << target.error().message();
      return signalPassFailure();
    }
    std::unique_ptr<cost::CostModel> model = cost::createAnalyticalCostModel(*target);
    // The memory plan's slots were chosen for the current order; moving a
    // write earlier must not meet a plane that merely reuses the bytes.
    SmallVector<FunctionOpInterface> replanned;
    module.walk([&](FunctionOpInterface f) {
      if (canReplanScratch(f)) {
        releaseScratchSlots(f);
        replanned.push_back(f);
      }
    });
    SmallVector<DispatchOp> dispatches;
    module.walk([&](DispatchOp d) { dispatches.push_back(d); });
    // Scales first: a Dory gate's scale then leaves the silu_mul reading the
    // mat-vec outputs directly.
    SmallVector<DispatchOp> remaining;
    for (DispatchOp d : dispatches)
      if (!absorbScale(d, *model))
        remaining.push_back(d);
    SmallVector<DispatchOp> norms;
    for (DispatchOp d : remaining)
      if (!absorb(d, *model))
        norms.push_back(d);
    for (DispatchOp d : norms)
      absorbNorm(d, *model);
    for (FunctionOpInterface f : replanned)
      replanScratchSlots(f);
  }
};

} // namespace
} // namespace kiln::stage
