//===- VectorViews.cpp - vector<4xf32> bindings of activation buffers -----===//
#include "VectorViews.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace kiln {

static int64_t groupColumns(stage::MatrixFormat format) {
  return format == stage::MatrixFormat::f16 ? 8 : 16;
}

/// A 1-D, identity-layout f32 buffer of a whole number of vec4s that is an
/// argument of a func.func (the host function the plan writer reads).
static bool viewable(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || type.getRank() != 1 || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !type.getElementType().isF32() || type.getDimSize(0) % 4 != 0)
    return false;
  auto arg = dyn_cast<BlockArgument>(v);
  // A multi-row program's activation is bound with its rows (Rows.h).
  return arg && isa<func::FuncOp>(arg.getOwner()->getParentOp()) && stage::bufferRows(v) == 1;
}

SmallVector<Value> vectorViewCandidates(Block &body, const StageToGPUOptions &options) {
  llvm::SetVector<Value> views;
  for (Operation &op : body) {
    if (auto matvec = dyn_cast<stage::MatVecOp>(op)) {
      if (!options.vectorActivations.of(matvec.getFormat()) ||
          matvec.getColumns() % groupColumns(matvec.getFormat()))
        continue;
      SmallVector<Value> reads = {matvec.getInput()};
      for (Value v : {matvec.getNorm(), matvec.getUp(), matvec.getColScale(),
                      matvec.getSlerpUpdate(), matvec.getSlerpAlpha()})
        if (v)
          reads.push_back(v);
      // A plain input stays on f32 loads (measured slower through a view);
      // the activations come from views only when every buffer has one.
      if (reads.size() > 1 && llvm::all_of(reads, viewable))
        views.insert(reads.begin(), reads.end());
    } else if (auto head = dyn_cast<stage::HeadRowsOp>(op)) {
      Value hidden = head.getInput();
      if (options.vectorActivations.of(head.getFormat()) &&
          cast<MemRefType>(hidden.getType()).getDimSize(0) % groupColumns(head.getFormat()) ==
              0 &&
          viewable(hidden))
        views.insert(hidden);
    }
  }
  return views.takeVector();
}

MemRefType vectorViewType(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto quad = VectorType::get({4}, type.getElementType());
  return MemRefType::get({type.getDimSize(0) / 4}, quad, MemRefLayoutAttrInterface(),
                         type.getMemorySpace());
}

Value hostView(Value buffer, Type type, DictionaryAttr attrs, llvm::DenseMap<Value, Value> &made) {
  if (Value view = made.lookup(buffer))
    return view;
  auto arg = cast<BlockArgument>(buffer);
  auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(index, type, attrs, arg.getLoc())))
    return Value();
  Value view = func.getArgument(index);
  made[buffer] = view;
  return view;
}

Value hostVectorView(Value buffer, llvm::DenseMap<Value, Value> &made) {
  auto arg = cast<BlockArgument>(buffer);
  auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return hostView(buffer, vectorViewType(buffer), func.getArgAttrDict(arg.getArgNumber()), made);
}

bool writesArgument(gpu::GPUFuncOp func, Value arg) {
  bool writes = false;
  func.walk([&](MemoryEffectOpInterface op) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    op.getEffectsOnValue(arg, effects);
    writes |= llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
      return isa<MemoryEffects::Write>(e.getEffect());
    });
  });
  return writes;
}

} // namespace kiln
