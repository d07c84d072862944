//===- ConvRing.cpp - Depthwise causal conv, ring shift and silu ----------===//
//
// One thread per channel: a channel depends on nothing else, so the ring is
// read, shifted and written in place by the thread that owns it.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::ConvRingOp op, const StageToGPUOptions &o) {
  return {o.rowWorkgroupSize,
          ceilDiv(memrefSize(op.getInput(), 0), o.rowWorkgroupSize)};
}

void buildKernel(stage::ConvRingOp op, KernelBuilder &kb) {
  int64_t channels = memrefSize(op.getInput(), 0);
  int64_t taps = memrefSize(op.getTaps(), 1);
  Value input = kb.buffer(op.getInput()), tapBuf = kb.buffer(op.getTaps());
  Value ring = op.getRing() ? kb.buffer(op.getRing()) : Value();
  Value out = kb.buffer(op.getOut());
  Value c = kb.globalId();
  kb.ifThen(kb.ult(c, kb.index(channels)), [&] {
    Value x = kb.load(input, {c});
    Value acc = kb.fmul(x, kb.load(tapBuf, {c, kb.index(taps - 1)}));
    // kk is a handful of taps: unrolled.
    SmallVector<Value> past;
    for (int64_t j = 0; j + 1 < taps; ++j) {
      past.push_back(kb.load(ring, {kb.index(j), c}));
      acc = kb.fadd(acc, kb.fmul(past.back(), kb.load(tapBuf, {c, kb.index(j)})));
    }
    kb.store(kb.silu(acc), out, {c});
    for (int64_t j = 0; j + 2 < taps; ++j)
      kb.store(past[j + 1], ring, {kb.index(j), c});
    if (taps > 1)
      kb.store(x, ring, {kb.index(taps - 2), c});
  });
}

} // namespace kiln
