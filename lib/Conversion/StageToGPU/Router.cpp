//===- Router.cpp - The resonance router in one workgroup -----------------===//
//
// Per expert, the workgroup reduces |x−μ|² and each basis projection; every
// lane then holds the same score, so the running best is uniform and lane 0
// writes it. Strict '>' keeps the lower id on a tie and keeps expert 0 when
// every expert is masked (−∞), as the seed does.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include <algorithm>
#include <limits>

using namespace mlir;

namespace kiln {

/// Basis projections reduced in one round with the distance: each takes W
/// floats of workgroup memory.
static constexpr int64_t kRanksPerRound = 8;

KernelShape shapeOf(stage::RouterOp, const StageToGPUOptions &o) {
  return {o.reduceWorkgroupSize, 1};
}

void buildKernel(stage::RouterOp op, KernelBuilder &kb) {
  int64_t hidden = memrefSize(op.getInput(), 0);
  int64_t experts = memrefSize(op.getCentres(), 0);
  int64_t rank = op.getBasis() ? memrefSize(op.getBasis(), 1) : 0;
  Value x = kb.buffer(op.getInput()), centres = kb.buffer(op.getCentres());
  Value basis = op.getBasis() ? kb.buffer(op.getBasis()) : Value();
  Value bias = kb.buffer(op.getBias());
  Value shells = op.getShells() ? kb.buffer(op.getShells()) : Value();
  Value negInf = kb.f32(-std::numeric_limits<float>::infinity());

  ValueRange best = kb.forLoop(
      kb.index(0), kb.index(experts), kb.index(1), {negInf, kb.index(0)},
      [&](Value e, ValueRange carried) -> SmallVector<Value> {
        // One pass over the row gives |x−μ|² and every basis projection
        // together, one reduction round for all of them (a pass and a round
        // each took 76 us on the H200, docs/performance.md). Ranks go in
        // rounds of at most kRanksPerRound to bound the workgroup memory.
        Value d2, projected = kb.f32(0.0f);
        for (int64_t first = 0; first == 0 || first < rank; first += kRanksPerRound) {
          int64_t count = std::min<int64_t>(kRanksPerRound, rank - first);
          SmallVector<Value> init(count + (first == 0 ? 1 : 0), kb.f32(0.0f));
          SmallVector<Value> sums = kb.forLoop(
              kb.threadId(), kb.index(hidden), kb.index(kb.getWorkgroupSize()), init,
              [&](Value i, ValueRange acc) -> SmallVector<Value> {
                Value d = kb.fsub(kb.load(x, {i}), kb.load(centres, {e, i}));
                SmallVector<Value> next(acc.begin(), acc.end());
                int64_t at = 0;
                if (first == 0) {
                  next[0] = kb.fadd(acc[0], kb.fmul(d, d));
                  at = 1;
                }
                for (int64_t c = 0; c < count; ++c)
                  next[at + c] = kb.fadd(
                      acc[at + c], kb.fmul(d, kb.load(basis, {e, kb.index(first + c), i})));
                return next;
              });
          SmallVector<Value> totals = kb.reduceMany(sums, ReduceKind::Add);
          int64_t at = 0;
          if (first == 0) {
            d2 = totals[0];
            at = 1;
          }
          for (int64_t c = 0; c < count; ++c)
            projected = kb.fadd(projected, kb.fmul(totals[at + c], totals[at + c]));
        }
        Value err = kb.fsub(d2, projected);
        Value score = kb.fsub(kb.load(bias, {e}), err);
        if (shells) {
          Value masked = arith::CmpFOp::create(kb.b,
              kb.loc, arith::CmpFPredicate::OGT, err, kb.load(shells, {e}));
          score = kb.select(masked, negInf, score);
        }
        Value better = arith::CmpFOp::create(kb.b,
            kb.loc, arith::CmpFPredicate::OGT, score, carried[0]);
        return {kb.select(better, score, carried[0]),
                kb.select(better, e, carried[1])};
      });
  Value chosen = best[1];
  kb.ifThen(arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq,
                                       kb.threadId(), kb.index(0)),
            [&] {
              Value id = arith::IndexCastUIOp::create(kb.b,
                  kb.loc, kb.b.getI32Type(), chosen);
              kb.store(id, kb.buffer(op.getSelected()), {kb.index(0)});
            });
}

} // namespace kiln
