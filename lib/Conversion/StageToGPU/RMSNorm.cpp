//===- RMSNorm.cpp - Residual add of partial planes and RMSNorm -----------===//
//
// One workgroup. Pass 1 adds the split-K planes into the residual (written
// back) and sums squares; one workgroup reduction; pass 2 scales into every
// output, each multiplied by its consumer's column field when given. A row of
// at most kMaxHeldPerThread values a thread stays in registers between the
// passes, every load of a pass in flight together (7.4 us a norm on the H200
// walking 2,048 values in a loop, docs/performance.md); a longer row is
// walked with a stride of the workgroup's size, any hidden size. A thread
// reads back only the residual values it wrote itself, so no barrier is
// needed between the passes beyond the reduction's.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::RMSNormOp, const StageToGPUOptions &o) {
  return {o.reduceWorkgroupSize, 1};
}

/// out[i] = y[i] (times out's column field) for every output.
static void storeOutputs(stage::RMSNormOp op, KernelBuilder &kb, Value y,
                         const std::function<Value(Value)> &at,
                         const std::function<void(Value, Value)> &store) {
  for (auto [index, out] : llvm::enumerate(op.getOuts())) {
    Value value = y;
    if (!op.getFolds().empty())
      value = kb.fmul(value, at(kb.buffer(op.getFolds()[index])));
    store(value, kb.buffer(out));
  }
}

void buildKernel(stage::RMSNormOp op, KernelBuilder &kb) {
  int64_t hidden = memrefSize(op.getResidual(), 0);
  Value residual = kb.buffer(op.getResidual());
  Value weight = kb.buffer(op.getWeight());
  Value partials = op.getPartials() ? kb.buffer(op.getPartials()) : Value();
  int64_t planes = partials ? memrefSize(op.getPartials(), 0) : 0;
  Value eps = kb.f32(op.getEps().convertToFloat());

  if (SmallVector<HeldElement> held = kb.held(hidden); !held.empty()) {
    SmallVector<Value> values, squares;
    for (const HeldElement &e : held) {
      Value v = kb.loadHeld(residual, e);
      for (int64_t k = 0; k < planes; ++k)
        v = kb.fadd(v, kb.loadHeld(partials, e, {kb.index(k)}));
      values.push_back(v);
      squares.push_back(kb.fmul(v, v));
    }
    if (partials)
      for (auto [e, v] : llvm::zip(held, values))
        kb.storeHeld(v, residual, e);
    Value total = kb.reduce(kb.sum(squares), ReduceKind::Add);
    Value inv = kb.rsqrt(kb.fadd(kb.fdiv(total, kb.f32(float(hidden))), eps));
    for (auto [e, v] : llvm::zip(held, values)) {
      Value w = kb.loadHeld(weight, e);
      if (op.getZeroCentered())
        w = kb.fadd(w, kb.f32(1.0f));
      storeOutputs(op, kb, kb.fmul(kb.fmul(v, inv), w),
                   [&](Value buffer) { return kb.loadHeld(buffer, e); },
                   [&](Value value, Value buffer) { kb.storeHeld(value, buffer, e); });
    }
    return;
  }

  Value sumSquares = kb.strided(kb.index(hidden), kb.f32(0.0f),
                                [&](Value i, Value acc) {
    Value v = kb.load(residual, {i});
    for (int64_t k = 0; k < planes; ++k)
      v = kb.fadd(v, kb.load(partials, {kb.index(k), i}));
    if (partials)
      kb.store(v, residual, {i});
    return kb.fadd(acc, kb.fmul(v, v));
  });
  Value total = kb.reduce(sumSquares, ReduceKind::Add);
  Value inv = kb.rsqrt(kb.fadd(kb.fdiv(total, kb.f32(float(hidden))), eps));
  kb.strided(kb.index(hidden), [&](Value i) {
    Value w = kb.load(weight, {i});
    if (op.getZeroCentered())
      w = kb.fadd(w, kb.f32(1.0f));
    storeOutputs(op, kb, kb.fmul(kb.fmul(kb.load(residual, {i}), inv), w),
                 [&](Value buffer) { return kb.load(buffer, {i}); },
                 [&](Value value, Value buffer) { kb.store(value, buffer, {i}); });
  });
}

} // namespace kiln
