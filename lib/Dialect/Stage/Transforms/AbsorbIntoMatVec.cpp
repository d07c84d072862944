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

#include <optional>

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

/// `v`'s placement by the memory plan when `v` is a function argument (a null
/// attribute where the function carries none); nullopt for any other value.
std::optional<BufferAttr> argumentBuffer(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  auto func = arg ? dyn_cast_or_null<FunctionOpInterface>(arg.getOwner()->getParentOp())
                  : FunctionOpInterface();
  if (!func)
    return std::nullopt;
  return bufferAttrOf(func, arg.getArgNumber());
}

/// Whether `v` is a function argument the memory plan calls scratch: only
/// scratch may be left unwritten (state, readback and weights are read later
/// or from outside).
bool isScratch(Value v) {
  std::optional<BufferAttr> buffer = argumentBuffer(v);
  // Hand-written stage modules (lit) carry no plan: any argument is scratch.
  return buffer && (!*buffer || buffer->getKind() == BufferKind::Scratch);
}

/// Whether `v` is a function argument the memory plan calls a weight.
bool isWeight(Value v) {
  std::optional<BufferAttr> buffer = argumentBuffer(v);
  return buffer && *buffer && buffer->getKind() == BufferKind::Weight;
}

/// The stages (in dispatches) other than `except` that take `v` as an
/// operand. Other buffers in v's slot of the memory plan live at other times.
SmallVector<Operation *> stagesUsing(FunctionOpInterface func, Operation *except, Value v) {
  SmallVector<Operation *> stages;
  func->walk([&](Operation *op) {
    if (op != except && isa_and_nonnull<DispatchOp>(op->getParentOp()) &&
        llvm::is_contained(op->getOperands(), v))
      stages.push_back(op);
  });
  return stages;
}

/// The one stage other than `producer` that uses `v`, if exactly one does.
Operation *soleReader(FunctionOpInterface func, Operation *producer, Value v) {
  SmallVector<Operation *> readers = stagesUsing(func, producer, v);
  return readers.size() == 1 ? readers.front() : nullptr;
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

/// A mat-vec a rewrite gives another input, and the q8_2f column field it
/// then takes as its col_scale (null: none): a normed reader of a norm's
/// output, a reader of a slerp's h (directly, or through a field's mul), a
/// reader of a field's mul.
struct FieldReader {
  MatVecOp matvec;
  Value field;
};

/// Each reader's mat-vec cloned beside it and changed by `rewrite`: the
/// clones, when their estimates sum below `before` (what the rewrite removes
/// besides the readers) plus the readers' own; otherwise none, the clones
/// erased. The caller erases the readers once it commits.
SmallVector<MatVecOp> cheaperClones(ArrayRef<FieldReader> readers, double before,
                                    const cost::CostModel &model,
                                    function_ref<void(MatVecOp clone)> rewrite) {
  double after = 0;
  SmallVector<MatVecOp> clones;
  for (const FieldReader &r : readers) {
    MatVecOp reader = r.matvec;
    OpBuilder b(reader);
    auto n = cast<MatVecOp>(b.clone(*reader.getOperation()));
    rewrite(n);
    if (r.field)
      n.getColScaleMutable().assign(r.field);
    before += aloneMicros(model, reader);
    after += aloneMicros(model, n);
    clones.push_back(n);
  }
  if (after < before)
    return clones;
  for (MatVecOp n : clones)
    n->erase();
  return {};
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
  SmallVector<FieldReader> readers;
  for (auto [index, out] : llvm::enumerate(rms.getOuts())) {
    if (!isScratch(out))
      return false;
    Value field = rms.getFolds().empty() ? Value() : rms.getFolds()[index];
    for (Operation *op : stagesUsing(func, rms, out)) {
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
          }))
        return false;
      // The same buffer listed as two outputs: one rewrite, one field.
      auto seen = llvm::find_if(readers, [&](const FieldReader &r) { return r.matvec == matvec; });
      if (seen != readers.end()) {
        if (seen->field != field)
          return false;
        continue;
      }
      readers.push_back({matvec, field});
    }
  }
  if (readers.empty())
    return false;

  SmallVector<MatVecOp> normed = cheaperClones(
      readers, aloneMicros(model, rms) + model.target().boundaryMicros, model,
      [&](MatVecOp n) {
        n.getInputMutable().assign(residual);
        n.getNormMutable().assign(weight);
        n.setNormEpsAttr(rms.getEpsAttr());
        n.setNormZeroCentered(rms.getZeroCentered());
      });
  if (normed.empty())
    return false;
  for (FieldReader &r : readers)
    r.matvec->erase();
  normDispatch->erase();
  return true;
}

/// Whether dispatches `a` and `b` run under the same condition (both always,
/// or both skipped by the same flag word).
bool sameSkip(DispatchOp a, DispatchOp b) {
  return a.getSkipFlag() == b.getSkipFlag() && a.getSkipWord() == b.getSkipWord();
}

/// Whether no operand of `matvec` but its input touches `v`'s memory.
bool touchesOnlyAsInput(MatVecOp matvec, Value v) {
  for (Value other : {matvec.getWeight(), matvec.getOut(), matvec.getFold(),
                      matvec.getRowScale(), matvec.getColScale(), matvec.getExpert()})
    if (other && buffersMayAlias(other, v))
      return false;
  return true;
}

/// Whether `matvec` reads `h` as its plain input and nothing else, so that it
/// can take a slerp of h instead.
bool plainReaderOf(MatVecOp matvec, Value h) {
  return matvec.getInput() == h && !matvec.getNorm() && !matvec.getSlerpUpdate() &&
         !matvec.getUp() && matvec.getNumExperts() == 1 &&
         matvec.getActivation() == Activation::none && touchesOnlyAsInput(matvec, h);
}

/// A new scratch argument of `func` shaped like `like`, named `name`, left
/// for the memory plan to place.
Value addScratchLike(FunctionOpInterface func, Value like, StringRef name) {
  unsigned index = func.getNumArguments();
  DictionaryAttr attrs;
  if (auto arg = dyn_cast<BlockArgument>(like))
    if (BufferAttr buffer = bufferAttrOf(func, arg.getArgNumber())) {
      auto next = BufferAttr::get(func->getContext(), BufferKind::Scratch, name,
                                  /*slot=*/std::nullopt, /*byte_offset=*/0,
                                  buffer.getByteSize(), /*tensors=*/{}, buffer.getRows());
      NamedAttribute attr(StringAttr::get(func->getContext(), kBufferAttrName), next);
      attrs = DictionaryAttr::get(func->getContext(), {attr});
    }
  if (failed(func.insertArgument(index, like.getType(), attrs, like.getLoc())))
    return Value();
  return func.getArgument(index);
}

/// The readers of `mul` = h ⊙ field when the product only feeds plain q8_2f
/// mat-vecs that can take the field as their col_scale (each its dispatch's
/// only stage, after the mul, under its skip flag, with nothing in between
/// writing the field); empty otherwise.
SmallVector<FieldReader> foldReaders(MulOp mul, DispatchOp mulDispatch, Value h) {
  if (mul->getNumOperands() != 3 || !soleStage(mulDispatch))
    return {};
  Value lhs = mul->getOperand(0), rhs = mul->getOperand(1), product = mul->getOperand(2);
  if ((lhs == h) == (rhs == h))
    return {};
  Value field = lhs == h ? rhs : lhs;
  if (!isScratch(product) || buffersMayAlias(product, h) || buffersMayAlias(product, field))
    return {};
  auto func = mulDispatch->getParentOfType<FunctionOpInterface>();
  SmallVector<FieldReader> readers;
  for (Operation *op : stagesUsing(func, mul, product)) {
    auto matvec = dyn_cast<MatVecOp>(op);
    auto dispatch = matvec ? cast<DispatchOp>(matvec->getParentOp()) : DispatchOp();
    if (!matvec || matvec.getFormat() != MatrixFormat::q8_2f || !plainReaderOf(matvec, product) ||
        !touchesOnlyAsInput(matvec, h) || matvec.getColScale() || !soleStage(dispatch) ||
        !sameSkip(dispatch, mulDispatch) || dispatch->getBlock() != mulDispatch->getBlock() ||
        !mulDispatch->isBeforeInBlock(dispatch) ||
        anyStageBetween(mulDispatch, dispatch,
                        [&](Operation *stage) { return writes(stage, field); }))
      return {};
    readers.push_back({matvec, field});
  }
  return readers;
}

/// Tries to fold a q8_2f column field's `mul(h, field)` into the mat-vecs that
/// read the product: each reads h and applies the field as its `col_scale`
/// (as a normed mat-vec already does); true on success.
bool absorbColumnField(DispatchOp mulDispatch, const cost::CostModel &model) {
  auto mul = dyn_cast_or_null<MulOp>(soleStage(mulDispatch));
  if (!mul || mul->getNumOperands() != 3)
    return false;
  Value lhs = mul->getOperand(0), rhs = mul->getOperand(1);
  // The field is the weight; the other factor is the activation.
  if (isWeight(lhs) == isWeight(rhs))
    return false;
  Value h = isWeight(lhs) ? rhs : lhs;
  SmallVector<FieldReader> readers = foldReaders(mul, mulDispatch, h);
  if (readers.empty())
    return false;
  // Each reader now reads h where it runs: nothing in between may write it.
  for (FieldReader &r : readers)
    if (anyStageBetween(mulDispatch, cast<DispatchOp>(r.matvec->getParentOp()),
                        [&](Operation *stage) { return writes(stage, h); }))
      return false;
  SmallVector<MatVecOp> scaled =
      cheaperClones(readers, aloneMicros(model, mul) + model.target().boundaryMicros, model,
                    [&](MatVecOp n) { n.getInputMutable().assign(h); });
  if (scaled.empty())
    return false;
  for (FieldReader &r : readers)
    r.matvec->erase();
  mulDispatch->erase();
  return true;
}

/// Tries to fold Dory's residual step `slerp(h, o, alpha)` into the mat-vecs
/// that read h next (directly, or through a q8_2f column field's mul): each
/// reads the old h and forms the new one itself (`slerp`), the first also
/// writing it to a new buffer h' (`hidden_out`), which every later use of h
/// reads instead. True on success.
bool absorbSlerp(DispatchOp slerpDispatch, const cost::CostModel &model) {
  auto slerp = dyn_cast_or_null<SlerpOp>(soleStage(slerpDispatch));
  if (!slerp)
    return false;
  Value h = slerp.getHidden(), o = slerp.getUpdate(), alpha = slerp.getAlpha();
  if (!isScratch(h) || buffersMayAlias(h, o) || buffersMayAlias(h, alpha))
    return false;
  auto func = slerpDispatch->getParentOfType<FunctionOpInterface>();
  // The readers: the mat-vecs (and field muls) that read h before any other
  // stage uses it. Every use after them reads h' (which the first reader
  // writes), so each must run whenever that reader does; h itself is then
  // never written again, so readers after such a use still see the old h.
  SmallVector<FieldReader> readers;
  SmallVector<DispatchOp> folds;
  SmallVector<OpOperand *> later;
  DispatchOp firstLater;
  for (Operation *op = slerpDispatch->getNextNode(); op; op = op->getNextNode()) {
    auto dispatch = dyn_cast<DispatchOp>(op);
    if (!dispatch) {
      if (llvm::is_contained(op->getOperands(), h))
        return false;
      continue;
    }
    for (Operation &stage : dispatch.getBody().front()) {
      if (!llvm::is_contained(stage.getOperands(), h))
        continue;
      if (later.empty() && soleStage(dispatch) && sameSkip(dispatch, slerpDispatch)) {
        auto matvec = dyn_cast<MatVecOp>(stage);
        if (matvec && plainReaderOf(matvec, h)) {
          readers.push_back({matvec, Value()});
          continue;
        }
        if (auto mul = dyn_cast<MulOp>(stage)) {
          SmallVector<FieldReader> fed = foldReaders(mul, dispatch, h);
          if (!fed.empty()) {
            llvm::append_range(readers, fed);
            folds.push_back(dispatch);
            continue;
          }
        }
      }
      if (slerpDispatch.getSkipFlag() && !sameSkip(dispatch, slerpDispatch))
        return false;
      if (!firstLater)
        firstLater = dispatch;
      for (OpOperand &use : stage.getOpOperands())
        if (use.get() == h)
          later.push_back(&use);
    }
  }
  if (readers.empty())
    return false;
  // h' comes from the earliest reader, which must run before h's later uses;
  // the readers read o and alpha where the slerp ran: nothing in between may
  // write them.
  auto dispatchOf = [](FieldReader &r) { return cast<DispatchOp>(r.matvec->getParentOp()); };
  FieldReader *writer = &readers.front();
  for (FieldReader &r : readers) {
    if (dispatchOf(r)->isBeforeInBlock(dispatchOf(*writer)))
      writer = &r;
    if (anyStageBetween(slerpDispatch, dispatchOf(r), [&](Operation *stage) {
          return writes(stage, o) || writes(stage, alpha);
        }))
      return false;
  }
  if (firstLater && !dispatchOf(*writer)->isBeforeInBlock(firstLater))
    return false;

  double before = aloneMicros(model, slerp) + model.target().boundaryMicros;
  for (DispatchOp fold : folds)
    before += aloneMicros(model, soleStage(fold));
  SmallVector<MatVecOp> slerped =
      cheaperClones(readers, before, model, [&](MatVecOp n) {
        n.getInputMutable().assign(h);
        n.getSlerpUpdateMutable().assign(o);
        n.getSlerpAlphaMutable().assign(alpha);
        n.setSlerpEpsAttr(slerp.getEpsAttr());
      });
  if (slerped.empty())
    return false;
  MatVecOp writerSlerped = slerped[writer - readers.begin()];
  auto undo = [&] {
    for (MatVecOp n : slerped)
      n->erase();
    return false;
  };
  std::string name = ("plane." + slerpDispatch.getKernelName().value_or("slerp")).str();
  Value next = addScratchLike(func, h, name);
  if (!next)
    return undo();
  writerSlerped.getHiddenOutMutable().assign(next);
  for (OpOperand *use : later)
    use->set(next);
  for (FieldReader &r : readers)
    r.matvec->erase();
  for (DispatchOp fold : folds)
    fold->erase();
  slerpDispatch->erase();
  return true;
}

struct KilnAbsorbIntoMatVecPass
    : impl::KilnAbsorbIntoMatVecBase<KilnAbsorbIntoMatVecPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<cost::TargetDesc> target =
        selectTargetFor(module, {targetFile, targetName, targetDir}, "kiln-absorb-into-matvec");
    if (failed(target))
      return signalPassFailure();
    std::unique_ptr<cost::CostModel> model = cost::createAnalyticalCostModel(*target);
    // The memory plan's slots were chosen for the current order; moving a
    // write earlier must not meet a plane that merely reuses the bytes.
    SmallVector<FunctionOpInterface> replanned;
    module.walk([&](FunctionOpInterface f) {
      if (canReplanScratch(f) && programRows(f) == 1) {
        releaseScratchSlots(f);
        replanned.push_back(f);
      }
    });
    // A multi-row program (@prefill) keeps its stages apart.
    auto oneRow = [](DispatchOp d) { return programRows(d->getParentOp()) == 1; };
    SmallVector<DispatchOp> dispatches;
    module.walk([&](DispatchOp d) {
      if (oneRow(d))
        dispatches.push_back(d);
    });
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
    SmallVector<DispatchOp> slerps;
    for (DispatchOp d : norms)
      if (!absorbNorm(d, *model) && isa_and_nonnull<SlerpOp>(soleStage(d)))
        slerps.push_back(d);
    // In program order: each slerp's later uses already read the h' of the
    // one before. (A slerp erases only field muls and itself.)
    if (this->slerps)
      for (DispatchOp d : slerps)
        absorbSlerp(d, *model);
    // Column fields last: a slerp folded above takes its fields itself.
    if (columnFields) {
      SmallVector<DispatchOp> left;
      module.walk([&](DispatchOp d) {
        if (oneRow(d))
          left.push_back(d);
      });
      for (DispatchOp d : left)
        absorbColumnField(d, *model);
    }
    for (FunctionOpInterface f : replanned)
      replanScratchSlots(f);
  }
};

} // namespace
} // namespace kiln::stage
