//===- Sample.cpp - Greedy sampling of the step's read-out on the device --===//
//
// One workgroup walks the vocabulary once, each thread keeping its maximum,
// the lowest id at it, a NaN flag and (with logits) Σ exp(v − max) as an
// online softmax; three workgroup reductions combine them (three passes, each
// with its reduction, took 17-50 us on the H200, docs/performance.md). Ids travel through the f32 reductions, exact below 2^24 (the
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

  // One pass: each thread keeps its running maximum m, the lowest id at it
  // (ids visited in increasing order, so a strict '>' keeps the first), a
  // NaN flag and Σ exp(v − m), rescaled when m grows (online softmax). Four
  // values are loaded before they are folded in.
  Value negInf = kb.f32(-INFINITY);
  auto step = [&](ValueRange acc, Value v, Value id) -> SmallVector<Value> {
    Value m = acc[0], lowest = acc[1], nan = acc[2], sum = acc[3];
    Value isNaN = cmp(arith::CmpFPredicate::UNO, v, v);
    Value grows = cmp(arith::CmpFPredicate::OGT, v, m);
    SmallVector<Value> next = {kb.select(grows, v, m), kb.select(grows, kb.indexToF32(id), lowest),
                               kb.select(isNaN, kb.f32(1.0f), nan), sum};
    if (op.getLogits()) {
      // exp of −∞ − −∞ would be NaN: a term or scale from −∞ is 0.
      Value mFinite = cmp(arith::CmpFPredicate::OGT, m, negInf);
      Value vFinite = cmp(arith::CmpFPredicate::OGT, v, negInf);
      Value rescaled = kb.fadd(
          kb.fmul(sum, kb.select(mFinite, kb.exp(kb.fsub(m, v)), kb.f32(0.0f))), kb.f32(1.0f));
      Value added = kb.fadd(sum, kb.select(vFinite, kb.exp(kb.fsub(v, m)), kb.f32(0.0f)));
      next[3] = kb.select(grows, rescaled, kb.select(isNaN, sum, added));
    }
    return next;
  };
  const int64_t width = kb.getWorkgroupSize(), unroll = 4;
  const int64_t blocks = vocab / (unroll * width);
  SmallVector<Value> init = {negInf, kb.f32(float(vocab)), kb.f32(0.0f), kb.f32(0.0f)};
  SmallVector<Value> acc = kb.forLoop(
      kb.index(0), kb.index(blocks), kb.index(1), init,
      [&](Value block, ValueRange carried) -> SmallVector<Value> {
        Value base = kb.add(kb.mul(block, kb.index(unroll * width)), kb.threadId());
        SmallVector<Value> ids, loaded;
        for (int64_t u = 0; u < unroll; ++u) {
          ids.push_back(kb.add(base, kb.index(u * width)));
          loaded.push_back(kb.load(values, {ids.back()}));
        }
        SmallVector<Value> next(carried.begin(), carried.end());
        for (int64_t u = 0; u < unroll; ++u)
          next = step(next, loaded[u], ids[u]);
        return next;
      });
  acc = kb.forLoop(kb.add(kb.index(blocks * unroll * width), kb.threadId()), kb.index(vocab),
                   kb.index(width), acc,
                   [&](Value i, ValueRange carried) -> SmallVector<Value> {
                     return step(carried, kb.load(values, {i}), i);
                   });

  // Across the workgroup: the maximum (and any NaN), then the lowest id at
  // it and the sum rescaled to it.
  SmallVector<Value> totals = kb.reduceMany({acc[0], acc[2]}, ReduceKind::Max);
  Value maximum = totals[0];
  Value atMax = cmp(arith::CmpFPredicate::OEQ, acc[0], maximum);
  Value lowest = kb.select(atMax, kb.fsub(kb.f32(0.0f), acc[1]), kb.f32(-float(vocab)));
  Value token = kb.fsub(kb.f32(0.0f), kb.reduce(lowest, ReduceKind::Max));
  Value logprob = maximum;
  if (op.getLogits()) {
    Value mFinite = cmp(arith::CmpFPredicate::OGT, acc[0], negInf);
    Value part = kb.select(mFinite, kb.fmul(acc[3], kb.exp(kb.fsub(acc[0], maximum))),
                           kb.f32(0.0f));
    logprob = kb.fsub(kb.f32(0.0f), kb.log(kb.reduce(part, ReduceKind::Add)));
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
