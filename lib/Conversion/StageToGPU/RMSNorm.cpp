//===- RMSNorm.cpp - Residual add of partial planes and RMSNorm -----------===//
//
// One workgroup walks the row with a stride of its size: any hidden size
// works. Pass 1 adds the split-K planes into the residual (written back) and
// sums squares; one workgroup reduction; pass 2 scales into every output,
// each multiplied by its consumer's column field when given. A thread reads
// back only the residual values it wrote itself, so no barrier is needed
// between the passes beyond the reduction's.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::RMSNormOp, const StageToGPUOptions &o) {
  return {o.reduceWorkgroupSize, 1};
}

void buildKernel(stage::RMSNormOp op, KernelBuilder &kb) {
  int64_t hidden = memrefSize(op.getResidual(), 0);
  Value residual = kb.buffer(op.getResidual());
  Value weight = kb.buffer(op.getWeight());
  Value partials = op.getPartials() ? kb.buffer(op.getPartials()) : Value();
  int64_t planes = partials ? memrefSize(op.getPartials(), 0) : 0;

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
  Value inv = kb.rsqrt(kb.fadd(kb.fdiv(total, kb.f32(float(hidden))),
                               kb.f32(op.getEps().convertToFloat())));
  kb.strided(kb.index(hidden), [&](Value i) {
    Value w = kb.load(weight, {i});
    if (op.getZeroCentered())
      w = kb.fadd(w, kb.f32(1.0f));
    Value y = kb.fmul(kb.fmul(kb.load(residual, {i}), inv), w);
    for (auto [index, out] : llvm::enumerate(op.getOuts())) {
      Value value = y;
      if (!op.getFolds().empty())
        value = kb.fmul(value, kb.load(kb.buffer(op.getFolds()[index]), {i}));
      kb.store(value, kb.buffer(out), {i});
    }
  });
}

} // namespace kiln
