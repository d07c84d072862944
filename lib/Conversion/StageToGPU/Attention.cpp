//===- Attention.cpp - Bounded attention over a ring, a workgroup per head ===//
//
// Key u < ns is sink u (scored against the un-rotated query); key ns + d is
// the ring row d steps back from the current slot. Scores live in workgroup
// memory (the verifier bounds their count): a thread per key, its dot product
// in four independent sums (the loads of a key in flight together); a max
// reduction, then weights with the e^-16 floor and a sum reduction. Then
// S = W / hd key slices of hd value lanes: lane d of slice s sums weight ·
// value over keys s, s + S, ...; the slices' partial sums meet in workgroup
// memory. The workgroup is attention-workgroup-size wide: a head's keys and
// value dims spread over all of it (with 64 threads one lane walked every key).
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include <cmath>

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::AttentionOp op, const StageToGPUOptions &o) {
  int64_t hd = memrefSize(op.getKRing(), 2);
  return {o.attentionWorkgroupSize, memrefSize(op.getQRot(), 0) / hd};
}

void buildKernel(stage::AttentionOp op, KernelBuilder &kb) {
  int64_t kvh = memrefSize(op.getKRing(), 0), window = memrefSize(op.getKRing(), 1),
          hd = memrefSize(op.getKRing(), 2);
  int64_t qh = memrefSize(op.getQRot(), 0) / hd;
  int64_t sinks = op.getSinkK() ? memrefSize(op.getSinkK(), 1) : 0;
  float scale = op.getScale() ? op.getScale()->convertToFloat()
                              : 1.0f / std::sqrt(float(hd));
  Value qRot = kb.buffer(op.getQRot()), qPlain = kb.buffer(op.getQPlain());
  Value kRing = kb.buffer(op.getKRing()), vRing = kb.buffer(op.getVRing());
  Value sinkK = op.getSinkK() ? kb.buffer(op.getSinkK()) : Value();
  Value sinkV = op.getSinkV() ? kb.buffer(op.getSinkV()) : Value();
  Value out = kb.buffer(op.getOut());
  Value scores = kb.workgroupBuffer(op.getMaxKeys());

  Value head = kb.workgroupId();
  Value kvHead = kb.div(head, kb.index(qh / kvh));
  Value qBase = kb.mul(head, kb.index(hd));
  Value position = kb.paramIndex(kb.buffer(op.getParams()), 1);
  // The group's window: a select chain over the (few) KV heads.
  Value groupWindow = kb.index(window);
  if (auto windows = op.getGroupWindows())
    for (int64_t h = 0; h < kvh; ++h)
      groupWindow = kb.select(
          arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq, kvHead,
                                     kb.index(h)),
          kb.index((*windows)[h]), groupWindow);
  Value ringKeys = kb.min(kb.add(position, kb.index(1)), groupWindow);
  Value total = kb.add(kb.index(sinks), ringKeys);
  Value current = kb.rem(position, kb.index(window));
  // Ring slot of the key `back` steps before the current one.
  auto ringSlot = [&](Value key) {
    Value back = kb.sub(key, kb.index(sinks));
    return kb.rem(kb.sub(kb.add(current, kb.index(window)), back),
                  kb.index(window));
  };
  auto dot = [&](Value query, const std::function<Value(Value)> &key) {
    return kb.dot(hd, [&](Value d) { return kb.load(query, {kb.add(qBase, d)}); }, key);
  };

  Value localMax = kb.strided(total, kb.f32(-3.4e38f), [&](Value u, Value m) {
    Value score;
    if (sinks > 0) {
      auto ifOp = scf::IfOp::create(kb.b, kb.loc, TypeRange{kb.b.getF32Type()},
                                         kb.ult(u, kb.index(sinks)), true);
      {
        OpBuilder::InsertionGuard g(kb.b);
        kb.b.setInsertionPointToStart(ifOp.thenBlock());
        Value s = dot(qPlain, [&](Value d) { return kb.load(sinkK, {kvHead, u, d}); });
        scf::YieldOp::create(kb.b, kb.loc, s);
        kb.b.setInsertionPointToStart(ifOp.elseBlock());
        Value slot = ringSlot(u);
        Value r = dot(qRot, [&](Value d) { return kb.load(kRing, {kvHead, slot, d}); });
        scf::YieldOp::create(kb.b, kb.loc, r);
      }
      score = ifOp.getResult(0);
    } else {
      Value slot = ringSlot(u);
      score = dot(qRot, [&](Value d) { return kb.load(kRing, {kvHead, slot, d}); });
    }
    score = kb.fmul(score, kb.f32(scale));
    kb.store(score, scores, {u});
    return kb.fmax(m, score);
  });
  Value maxScore = kb.reduce(localMax, ReduceKind::Max);
  Value localSum = kb.strided(total, kb.f32(0.0f), [&](Value u, Value s) {
    Value shifted = kb.fsub(kb.load(scores, {u}), maxScore);
    // A key more than 16 below the maximum leaves sum and normaliser.
    Value kept = arith::CmpFOp::create(kb.b, kb.loc, arith::CmpFPredicate::OGE,
                                            shifted, kb.f32(-16.0f));
    Value weight = kb.select(kept, kb.exp(shifted), kb.f32(0.0f));
    kb.store(weight, scores, {u});
    return kb.fadd(s, weight);
  });
  Value sum = kb.reduce(localSum, ReduceKind::Add);
  Value inv = kb.fdiv(kb.f32(1.0f), kb.fmax(sum, kb.f32(1e-20f)));
  // Value phase: S slices of hd lanes when the workgroup is wider than hd.
  const int64_t width = kb.getWorkgroupSize();
  const int64_t slices = std::max<int64_t>(1, width / hd);
  Value partials = slices > 1 ? kb.workgroupBuffer(slices * hd) : Value();
  auto weightedValues = [&](Value d, Value firstKey, Value keyStep) {
    auto valueAt = [&](Value u) -> Value {
      if (sinks == 0)
        return kb.load(vRing, {kvHead, ringSlot(u), d});
      auto ifOp = scf::IfOp::create(kb.b, kb.loc, TypeRange{kb.b.getF32Type()},
                                         kb.ult(u, kb.index(sinks)), true);
      OpBuilder::InsertionGuard g(kb.b);
      kb.b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(kb.b, kb.loc, kb.load(sinkV, {kvHead, u, d}));
      kb.b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(kb.b, kb.loc, kb.load(vRing, {kvHead, ringSlot(u), d}));
      return ifOp.getResult(0);
    };
    return kb.forLoop(firstKey, total, keyStep, {kb.f32(0.0f)},
                      [&](Value u, ValueRange s) -> SmallVector<Value> {
      return {kb.fadd(s[0], kb.fmul(kb.load(scores, {u}), valueAt(u)))};
    })[0];
  };
  auto storeOut = [&](Value d, Value acc) {
    Value y = kb.fmul(acc, inv);
    Value at = kb.add(qBase, d);
    if (op.getFold())
      y = kb.fmul(y, kb.load(kb.buffer(op.getFold()), {at}));
    kb.store(y, out, {at});
  };
  if (slices == 1) {
    kb.strided(kb.index(hd), [&](Value d) {
      storeOut(d, weightedValues(d, kb.index(0), kb.index(1)));
    });
    return;
  }
  // Thread t is lane t mod hd of slice t / hd; threads past slices · hd idle.
  Value thread = kb.threadId();
  Value lane = kb.rem(thread, kb.index(hd));
  Value slice = kb.div(thread, kb.index(hd));
  kb.ifThen(kb.ult(thread, kb.index(slices * hd)), [&] {
    kb.store(weightedValues(lane, slice, kb.index(slices)), partials, {thread});
  });
  kb.barrier();
  kb.ifThen(kb.ult(thread, kb.index(hd)), [&] {
    Value acc = kb.load(partials, {thread});
    for (int64_t s = 1; s < slices; ++s)
      acc = kb.fadd(acc, kb.load(partials, {kb.add(thread, kb.index(s * hd))}));
    storeOut(thread, acc);
  });
}

} // namespace kiln
