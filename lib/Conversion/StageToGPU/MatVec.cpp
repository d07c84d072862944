//===- MatVec.cpp - The packed mat-vec kernel -----------------------------===//
//
// Many short threads: thread t handles (row = t / K, chunk = t % K), walks at
// most ceil(G / K) 16-byte groups of its row and writes one value (K = split_k
// planes, the next norm adds them). Neighbouring threads share a row, so the
// activation stays in cache.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::MatVecOp op, const StageToGPUOptions &o) {
  int64_t threads = op.getRows() * op.getSplitK();
  return {o.rowWorkgroupSize, ceilDiv(threads, o.rowWorkgroupSize)};
}

void buildKernel(stage::MatVecOp op, KernelBuilder &kb) {
  int64_t rows = op.getRows(), splitK = op.getSplitK();
  int64_t groups = memrefSize(op.getWeight(), 1);
  int64_t perChunk = ceilDiv(groups, splitK);
  Value weight = kb.buffer(op.getWeight());
  Value input = kb.buffer(op.getInput());
  Value up = op.getUp() ? kb.buffer(op.getUp()) : Value();
  Value out = kb.buffer(op.getOut());

  Value thread = kb.globalId();
  kb.ifThen(kb.ult(thread, kb.index(rows * splitK)), [&] {
    Value row = kb.div(thread, kb.index(splitK));
    Value chunk = kb.rem(thread, kb.index(splitK));
    Value first = kb.mul(chunk, kb.index(perChunk));
    Value end = kb.min(kb.add(first, kb.index(perChunk)), kb.index(groups));
    Value y = kb.packedRowDot(
        weight, row, first, end, op.getFormat(), op.getColumns(),
        [&](Value column) {
          Value x = kb.load(input, {column});
          if (up)
            x = kb.fmul(kb.silu(x), kb.load(up, {column}));
          return x;
        });
    if (op.getRowScale())
      y = kb.fmul(y, kb.load(kb.buffer(op.getRowScale()), {row}));
    if (op.getFold())
      y = kb.fmul(y, kb.load(kb.buffer(op.getFold()), {row}));
    SmallVector<Value> at;
    if (splitK > 1)
      at = {chunk, row};
    else
      at = {row};
    if (op.getAccumulate())
      y = kb.fadd(y, kb.load(out, at));
    kb.store(y, out, at);
  });
}

} // namespace kiln
