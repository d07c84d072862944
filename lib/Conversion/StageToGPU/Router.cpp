//===- Router.cpp - The resonance router in one workgroup -----------------===//
//
// Per expert, the workgroup reduces |x−μ|² and each basis projection; every
// lane then holds the same score, so the running best is uniform and lane 0
// writes it. Strict '>' keeps the lower id on a tie and keeps expert 0 when
// every expert is masked (−∞), as the seed does.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include <limits>

using namespace mlir;

namespace kiln {

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
        auto centred = [&](Value i) {
          return kb.fsub(kb.load(x, {i}), kb.load(centres, {e, i}));
        };
        Value d2 = kb.reduce(
            kb.strided(kb.index(hidden), kb.f32(0.0f), [&](Value i, Value acc) {
              Value d = centred(i);
              return kb.fadd(acc, kb.fmul(d, d));
            }),
            ReduceKind::Add);
        Value projected = kb.f32(0.0f);
        if (rank > 0)
          projected = kb.forLoop(
              kb.index(0), kb.index(rank), kb.index(1), {kb.f32(0.0f)},
              [&](Value c, ValueRange s) -> SmallVector<Value> {
                Value p = kb.reduce(
                    kb.strided(kb.index(hidden), kb.f32(0.0f),
                               [&](Value i, Value acc) {
                                 return kb.fadd(acc, kb.fmul(centred(i),
                                                             kb.load(basis, {e, c, i})));
                               }),
                    ReduceKind::Add);
                return {kb.fadd(s[0], kb.fmul(p, p))};
              })[0];
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
