//===- Elementwise.cpp - silu_mul, add, mul, sigmoid_gate, embed_gather ---===//
//
// One thread per output value; no thread waits on another.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

using namespace mlir;

namespace kiln {

KernelShape shapeOfElementwise(Operation *op, const StageToGPUOptions &o) {
  int64_t size = memrefSize(op->getOperand(2), 0);
  return {o.rowWorkgroupSize, ceilDiv(size, o.rowWorkgroupSize)};
}

void buildElementwiseKernel(Operation *op, KernelBuilder &kb) {
  Value lhs = kb.buffer(op->getOperand(0)), rhs = kb.buffer(op->getOperand(1));
  Value out = kb.buffer(op->getOperand(2));
  Value fold = op->getNumOperands() > 3 ? kb.buffer(op->getOperand(3)) : Value();
  int64_t size = memrefSize(op->getOperand(2), 0);
  Value i = kb.globalId();
  kb.ifThen(kb.ult(i, kb.index(size)), [&] {
    Value a = kb.load(lhs, {i}), c = kb.load(rhs, {i});
    Value y;
    if (isa<stage::SiluMulOp>(op))
      y = kb.fmul(kb.silu(a), c);
    else if (isa<stage::AddOp>(op))
      y = kb.fadd(a, c);
    else if (isa<stage::MulOp>(op))
      y = kb.fmul(a, c);
    else
      y = kb.fmul(a, kb.sigmoid(c));
    if (fold)
      y = kb.fmul(y, kb.load(fold, {i}));
    kb.store(y, out, {i});
  });
}

KernelShape shapeOf(stage::EmbedGatherOp op, const StageToGPUOptions &o) {
  return {o.rowWorkgroupSize,
          ceilDiv(memrefSize(op.getTable(), 1), o.rowWorkgroupSize)};
}

void buildKernel(stage::EmbedGatherOp op, KernelBuilder &kb) {
  int64_t vocab = memrefSize(op.getTable(), 0);
  int64_t groups = memrefSize(op.getTable(), 1);
  int64_t hidden = memrefSize(op.getOut(), 0);
  Value table = kb.buffer(op.getTable()), out = kb.buffer(op.getOut());
  Value group = kb.globalId();
  kb.ifThen(kb.ult(group, kb.index(groups)), [&] {
    Value token = kb.paramIndex(kb.buffer(op.getParams()), 0);
    // An id past the vocabulary reads row 0 and writes zeros: never out of
    // bounds.
    Value valid = kb.ult(token, kb.index(vocab));
    Value row = kb.select(valid, token, kb.index(0));
    auto [even, odd] = kb.decodeHalves(kb.load(table, {row, group}));
    Value base = kb.mul(group, kb.index(8));
    for (int64_t j = 0; j < 8; ++j) {
      Value half = (j % 2 == 0) ? even : odd;
      Value v = vector::ExtractOp::create(kb.b, kb.loc, half, j / 2);
      v = kb.select(valid, v, kb.f32(0.0f));
      Value column = kb.add(base, kb.index(j));
      if (hidden % 8 == 0)
        kb.store(v, out, {column});
      else
        kb.ifThen(kb.ult(column, kb.index(hidden)),
                  [&] { kb.store(v, out, {column}); });
    }
  });
}

} // namespace kiln
