//===- Sample.cpp - Greedy sampling of the step's read-out on the device --===//
//
// One workgroup walks the vocabulary three times (max and NaN; the lowest id
// at the max; with logits, Σ exp(v − max)), each pass ending in one workgroup
// reduction. Ids travel through the f32 reductions, exact below 2^24 (the
// op's verifier). Thread 0 writes the token and its log-probability's bits.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::SampleGreedyOp, const StageToGPUOptions &o) {
  return {o.reduceWorkgroupSize, 1};
}

void buildKernel(stage::SampleGreedyOp op, KernelBuilder &kb) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  const int64_t vocab = memrefSize(op.getValues(), 0);
  Value values = kb.buffer(op.getValues());
  Value out = kb.buffer(op.getOut());
  auto cmp = [&](arith::CmpFPredicate predicate, Value a, Value c) {
    return arith::CmpFOp::create(b, loc, predicate, a, c).getResult();
  };

  // Pass 1: the maximum (maxnum skips NaN, so NaN is counted apart).
  Value init = kb.f32(-INFINITY);
  SmallVector<Value> partial = kb.forLoop(
      kb.threadId(), kb.index(vocab), kb.index(kb.getWorkgroupSize()),
      ValueRange{init, kb.f32(0.0f)}, [&](Value i, ValueRange acc) -> SmallVector<Value> {
        Value v = kb.load(values, {i});
        Value isNaN = cmp(arith::CmpFPredicate::UNO, v, v);
        return {kb.fmax(acc[0], v), kb.select(isNaN, kb.f32(1.0f), acc[1])};
      });
  SmallVector<Value> totals = kb.reduceMany(partial, ReduceKind::Max);
  Value maximum = totals[0];

  // Pass 2: the lowest id holding the maximum, as the max of −id.
  Value lowest = kb.strided(kb.index(vocab), kb.f32(-float(vocab)), [&](Value i, Value acc) {
    Value hit = cmp(arith::CmpFPredicate::OEQ, kb.load(values, {i}), maximum);
    return kb.fmax(acc, kb.select(hit, kb.fsub(kb.f32(0.0f), kb.indexToF32(i)), acc));
  });
  Value token = kb.fsub(kb.f32(0.0f), kb.reduce(lowest, ReduceKind::Max));

  // Pass 3 (logits): log-probability = −log Σ exp(v − max).
  Value logprob = maximum;
  if (op.getLogits()) {
    Value sum = kb.strided(kb.index(vocab), kb.f32(0.0f), [&](Value i, Value acc) {
      return kb.fadd(acc, kb.exp(kb.fsub(kb.load(values, {i}), maximum)));
    });
    logprob = kb.fsub(kb.f32(0.0f), kb.log(kb.reduce(sum, ReduceKind::Add)));
  }

  // No finite maximum (all −∞, +∞ or a NaN): the vocabulary size, an id no
  // token has.
  Value finite = arith::AndIOp::create(
      b, loc, cmp(arith::CmpFPredicate::OEQ, totals[1], kb.f32(0.0f)),
      arith::AndIOp::create(b, loc, cmp(arith::CmpFPredicate::OGT, maximum, kb.f32(-INFINITY)),
                            cmp(arith::CmpFPredicate::OLT, maximum, kb.f32(INFINITY))));
  token = kb.select(finite, token, kb.f32(float(vocab)));
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kb.threadId(),
                                        kb.index(0));
  kb.ifThen(isFirst, [&] {
    kb.store(arith::FPToUIOp::create(b, loc, b.getI32Type(), token), out, {kb.index(0)});
    kb.store(arith::BitcastOp::create(b, loc, b.getI32Type(), logprob), out, {kb.index(1)});
  });
}

} // namespace kiln
