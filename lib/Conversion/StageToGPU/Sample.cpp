//===- Sample.cpp - The step's next token, picked on the device -----------===//
//
// One workgroup walks the vocabulary once, each thread keeping its maximum,
// the lowest id at it, a NaN flag and (with logits) Σ exp(v − max) as an
// online softmax; three workgroup reductions combine them (three passes, each
// with its reduction, took 17-50 us on the H200, docs/performance.md). Ids
// travel through the f32 reductions, exact below 2^24 (the op's verifier).
//
// At a temperature above 0 the greedy pick is replaced by a draw from the
// top-p set, without sorting: a token drawn from the weights above a bound is
// kept when the weight strictly above it is below top_p · Σ w; otherwise it
// and everything at or below it leave, the bound rises to its weight and the
// draw repeats. The kept token is distributed as w restricted to the top-p set
// (docs/runtime.md). Thread 0 writes the token and its log-probability's bits.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::SampleOp, const StageToGPUOptions &o) {
  return {o.reduceWorkgroupSize, 1};
}

namespace {

/// Draws beyond this many are not made: the pick falls back to the greedy
/// token, which every top-p set holds. A rejected draw removes itself and
/// every token at or below its weight, so the loop always narrows; the cap
/// bounds the kernel's time.
constexpr int64_t kMaxDraws = 32;

/// A uniform in [0, 1) from the step's random word and the draw's number:
/// Wellons' lowbias32 integer hash of random + draw · 2^32/φ, top 24 bits.
Value uniformOf(KernelBuilder &kb, Value random, Value draw) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  auto c = [&](uint32_t v) { return kb.i32(static_cast<int32_t>(v)); };
  auto xorShift = [&](Value x, uint32_t shift) {
    return arith::XOrIOp::create(b, loc, x, arith::ShRUIOp::create(b, loc, x, c(shift)));
  };
  Value drawWord = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), draw);
  Value x = arith::AddIOp::create(b, loc, random,
                                  arith::MulIOp::create(b, loc, drawWord, c(0x9e3779b9u)));
  x = arith::MulIOp::create(b, loc, xorShift(x, 16), c(0x7feb352du));
  x = arith::MulIOp::create(b, loc, xorShift(x, 15), c(0x846ca68bu));
  x = arith::ShRUIOp::create(b, loc, xorShift(x, 16), c(8));
  return kb.fmul(arith::UIToFPOp::create(b, loc, b.getF32Type(), x), kb.f32(0x1p-24f));
}

/// The token drawn at `temperature` from the top-p set of `values` and its
/// value: (id as f32, value). `maximum` is the values' finite maximum and
/// `greedy` its lowest id, the fallback.
std::pair<Value, Value> drawToken(KernelBuilder &kb, Value values, int64_t vocab, Value maximum,
                                  Value greedy, Value temperature, Value topP, Value random) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  auto fcmp = [&](arith::CmpFPredicate predicate, Value a, Value c) {
    return arith::CmpFOp::create(b, loc, predicate, a, c).getResult();
  };
  const int64_t width = kb.getWorkgroupSize();
  Value inverse = kb.fdiv(kb.f32(1.0f), temperature);
  // exp((v − max)/T), exactly 1 at the maximum (a tiny T makes 0 · ∞ there).
  auto weightOf = [&](Value v) {
    Value d = kb.fsub(v, maximum);
    return kb.select(fcmp(arith::CmpFPredicate::OEQ, d, kb.f32(0.0f)), kb.f32(1.0f),
                     kb.exp(kb.fmul(d, inverse)));
  };
  // This thread's Σ of the weights above `bound` (ids threadId + k·W).
  auto massAbove = [&](Value bound) {
    return kb.strided(kb.index(vocab), kb.f32(0.0f), [&](Value i, Value sum) {
      Value w = weightOf(kb.load(values, {i}));
      return kb.fadd(sum, kb.select(fcmp(arith::CmpFPredicate::OGT, w, bound), w,
                                    kb.f32(0.0f)));
    });
  };
  Value scan = kb.workgroupBuffer(width);
  Value picked = kb.workgroupBuffer(2);
  Value tid = kb.threadId();
  Value tidF = kb.indexToF32(tid);

  // One draw among the weights above `bound`, this thread's share `mine`:
  // an inclusive scan of the shares finds the thread holding the target,
  // which walks its ids in order.
  auto drawAbove = [&](Value bound, Value mine, Value draw) -> SmallVector<Value> {
    kb.store(mine, scan, {tid});
    kb.barrier();
    for (int64_t offset = 1; offset < width; offset *= 2) {
      Value hasLeft = kb.uge(tid, kb.index(offset));
      Value left = kb.load(scan, {kb.select(hasLeft, kb.sub(tid, kb.index(offset)), tid)});
      Value sum = kb.fadd(kb.load(scan, {tid}), kb.select(hasLeft, left, kb.f32(0.0f)));
      kb.barrier();
      kb.store(sum, scan, {tid});
      kb.barrier();
    }
    Value total = kb.load(scan, {kb.index(width - 1)});
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, kb.index(0));
    Value before = kb.select(isFirst, kb.f32(0.0f),
                             kb.load(scan, {kb.select(isFirst, tid, kb.sub(tid, kb.index(1)))}));
    Value target = kb.fmul(uniformOf(kb, random, draw), total);
    // The last thread with a share that starts at or below the target.
    Value holds = arith::AndIOp::create(b, loc, fcmp(arith::CmpFPredicate::OGT, mine, kb.f32(0.0f)),
                                        fcmp(arith::CmpFPredicate::OLE, before, target));
    Value chosen = kb.reduce(kb.select(holds, tidF, kb.f32(-1.0f)), ReduceKind::Max);
    kb.ifThen(fcmp(arith::CmpFPredicate::OEQ, tidF, chosen), [&] {
      // (running, found, id, weight): the first id whose running sum passes
      // the target, else the last id above the bound (rounding).
      SmallVector<Value> walk = kb.forLoop(
          tid, kb.index(vocab), kb.index(width),
          {before, kb.f32(0.0f), kb.f32(-1.0f), kb.f32(0.0f)},
          [&](Value i, ValueRange acc) -> SmallVector<Value> {
            Value w = weightOf(kb.load(values, {i}));
            Value above = fcmp(arith::CmpFPredicate::OGT, w, bound);
            Value running = kb.fadd(acc[0], kb.select(above, w, kb.f32(0.0f)));
            Value open = fcmp(arith::CmpFPredicate::OEQ, acc[1], kb.f32(0.0f));
            Value take = arith::AndIOp::create(b, loc, above, open);
            Value passes = fcmp(arith::CmpFPredicate::OLT, target, running);
            return {running,
                    kb.select(arith::AndIOp::create(b, loc, take, passes), kb.f32(1.0f), acc[1]),
                    kb.select(take, kb.indexToF32(i), acc[2]), kb.select(take, w, acc[3])};
          });
      kb.store(walk[2], picked, {kb.index(0)});
      kb.store(walk[3], picked, {kb.index(1)});
    });
    kb.barrier();
    return {kb.load(picked, {kb.index(0)}), kb.load(picked, {kb.index(1)})};
  };

  // (kept, id, bound, total): draw `draw` first checks the previous draw
  // (the weight above it is this pass's mass), then draws again if needed.
  Value keepsAll = fcmp(arith::CmpFPredicate::OGE, topP, kb.f32(1.0f));
  SmallVector<Value> state = kb.forLoop(
      kb.index(0), kb.index(kMaxDraws), kb.index(1),
      {kb.f32(0.0f), greedy, kb.f32(0.0f), kb.f32(0.0f)},
      [&](Value draw, ValueRange carried) -> SmallVector<Value> {
        Value open = fcmp(arith::CmpFPredicate::OEQ, carried[0], kb.f32(0.0f));
        SmallVector<Value> carriedValues(carried.begin(), carried.end());
        return kb.ifThenElseValues(
            open,
            [&]() -> SmallVector<Value> {
              Value mine = massAbove(carried[2]);
              Value mass = kb.reduce(mine, ReduceKind::Add);
              Value isFirst =
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, draw, kb.index(0));
              Value total = kb.select(isFirst, mass, carried[3]);
              // The previous draw stays when the weight above it is below
              // top_p · total (the first pass has none to check).
              Value accepted = kb.select(
                  isFirst, arith::ConstantIntOp::create(b, loc, 0, 1),
                  fcmp(arith::CmpFPredicate::OLT, mass, kb.fmul(topP, total)));
              return kb.ifThenElseValues(
                  accepted,
                  [&]() -> SmallVector<Value> {
                    return {kb.f32(1.0f), carried[1], carried[2], total};
                  },
                  [&]() -> SmallVector<Value> {
                    SmallVector<Value> pick = drawAbove(carried[2], mine, draw);
                    return {kb.select(keepsAll, kb.f32(1.0f), kb.f32(0.0f)), pick[0], pick[1],
                            total};
                  });
            },
            [&]() -> SmallVector<Value> { return carriedValues; });
      });
  // Not settled within kMaxDraws: the greedy token.
  Value kept = fcmp(arith::CmpFPredicate::OEQ, state[0], kb.f32(1.0f));
  Value id = kb.select(kept, state[1], greedy);
  Value safe = arith::FPToUIOp::create(b, loc, b.getI32Type(), id);
  Value value = kb.load(values, {arith::IndexCastUIOp::create(b, loc, b.getIndexType(), safe)});
  return {id, value};
}

} // namespace

void buildKernel(stage::SampleOp op, KernelBuilder &kb) {
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
  // 16 loads in flight a trip: at 4, embryo-1b's 32768-word walk took 24.5
  // us in one 512-thread workgroup on an H100 (16 dependent trips).
  SmallVector<Value> init = {negInf, kb.f32(float(vocab)), kb.f32(0.0f), kb.f32(0.0f)};
  SmallVector<Value> acc = kb.stridedLoadsFirst(
      vocab, /*unroll=*/16, init, [&](Value i) { return kb.load(values, {i}); }, step);

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
  if (Value params = op.getParams() ? kb.buffer(op.getParams()) : Value()) {
    Value temperature = kb.paramF32(params, stage::kTemperatureWord);
    Value draws = arith::AndIOp::create(
        b, loc, finite, cmp(arith::CmpFPredicate::OGT, temperature, kb.f32(0.0f)));
    Value greedyToken = token, greedyLogprob = logprob;
    SmallVector<Value> pick = kb.ifThenElseValues(
        draws,
        [&]() -> SmallVector<Value> {
          auto [id, value] = drawToken(kb, values, vocab, maximum, greedyToken, temperature,
                                       kb.paramF32(params, stage::kTopPWord),
                                       kb.load(params, {kb.index(stage::kRandomWord)}));
          // The model's own log-probability, before temperature.
          Value drawnLogprob =
              op.getLogits() ? kb.fadd(kb.fsub(value, maximum), greedyLogprob) : value;
          return {id, drawnLogprob};
        },
        [&]() -> SmallVector<Value> { return {greedyToken, greedyLogprob}; });
    token = pick[0];
    logprob = pick[1];
  }
  token = kb.select(finite, token, kb.f32(float(vocab)));
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kb.threadId(),
                                        kb.index(0));
  Value tokenWord = arith::FPToUIOp::create(b, loc, b.getI32Type(), token);
  kb.ifThen(isFirst, [&] {
    kb.store(tokenWord, out, {kb.index(0)});
    kb.store(arith::BitcastOp::create(b, loc, b.getI32Type(), logprob), out, {kb.index(1)});
    if (memrefSize(op.getOut(), 0) == 3) {
      // The continue word: 0 once the pick is the stop token.
      Value stop = kb.load(kb.buffer(op.getParams()), {kb.index(stage::kStopTokenWord)});
      Value goesOn =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, tokenWord, stop);
      kb.store(arith::ExtUIOp::create(b, loc, b.getI32Type(), goesOn), out, {kb.index(2)});
    }
  });
}

} // namespace kiln
