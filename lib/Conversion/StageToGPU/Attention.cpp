//===- Attention.cpp - Bounded attention from its scores, split over dims -===//
//
// A workgroup per (query head, slice of D head dims): every workgroup of a
// head reads the head's scores (stage.key_scores wrote them: sinks, then the
// ring newest first), takes their maximum, writes the weights with the e^-16
// floor to workgroup memory and reduces their sum; then S = W / D key slices
// of D value lanes: lane d of slice s sums weight · value over keys s, s +
// S, ... (several keys' loads in flight), and the slices' sums meet in
// workgroup memory. Reading the whole score row in each workgroup is what
// keeps the floor exact: no partial softmax is ever combined.
//
//===----------------------------------------------------------------------===//
#include "KeyScores.h"

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::AttentionOp op, const StageToGPUOptions &o) {
  int64_t hd = memrefSize(op.getVRing(), 2);
  int64_t heads = memrefSize(op.getOut(), 0) / hd;
  return {splitAttentionWidth(o), heads * (hd / dimsPerValueWorkgroup(hd, o))};
}

void buildKernel(stage::AttentionOp op, KernelBuilder &kb) {
  int64_t kvh = memrefSize(op.getVRing(), 0), cap = memrefSize(op.getVRing(), 1),
          hd = memrefSize(op.getVRing(), 2);
  int64_t qh = memrefSize(op.getOut(), 0) / hd;
  int64_t sinks = op.getSinkV() ? memrefSize(op.getSinkV(), 1) : 0;
  const int64_t dims = dimsPerValueWorkgroup(hd, kb.options()), slices = hd / dims;
  Value scores = kb.buffer(op.getScores()), vRing = kb.buffer(op.getVRing());
  Value sinkV = sinks > 0 ? kb.buffer(op.getSinkV()) : Value();
  Value out = kb.buffer(op.getOut());
  Value weights = kb.workgroupBuffer(op.getMaxKeys());
  Value partials = kb.workgroupBuffer(kb.getWorkgroupSize());

  Value head = kb.div(kb.workgroupId(), kb.index(slices));
  Value dimBase = kb.mul(kb.rem(kb.workgroupId(), kb.index(slices)), kb.index(dims));
  Value position = kb.paramIndex(kb.buffer(op.getParams()), 1);
  auto windows = op.getGroupWindows();
  KeyWalk walk = walkKeys(kb, head, qh, kvh, cap, sinks, position,
                          [&](int64_t g) { return windows ? (*windows)[g] : cap; });

  Value localMax = kb.strided(walk.count, kb.f32(-3.4e38f), [&](Value u, Value m) {
    return kb.fmax(m, kb.load(scores, {head, u}));
  });
  Value maxScore = kb.reduce(localMax, ReduceKind::Max);
  Value localSum = kb.strided(walk.count, kb.f32(0.0f), [&](Value u, Value s) {
    Value shifted = kb.fsub(kb.load(scores, {head, u}), maxScore);
    // A key more than 16 below the maximum leaves sum and normaliser.
    Value kept = arith::CmpFOp::create(kb.b, kb.loc, arith::CmpFPredicate::OGE,
                                       shifted, kb.f32(-16.0f));
    Value weight = kb.select(kept, kb.exp(shifted), kb.f32(0.0f));
    kb.store(weight, weights, {u});
    return kb.fadd(s, weight);
  });
  // The reduction's barriers also publish every lane's weights.
  Value sum = kb.reduce(localSum, ReduceKind::Add);
  Value inv = kb.fdiv(kb.f32(1.0f), kb.fmax(sum, kb.f32(1e-20f)));
  auto weightedValues = [&](Value d, Value first, Value step) {
    Value dim = kb.add(dimBase, d);
    return sumWeightedValues(
        kb, walk, dim, first, step, kb.f32(0.0f),
        [&](Value u) { return kb.load(weights, {u}); },
        [&](Value u, Value at) { return kb.load(sinkV, {walk.kvHead, u, at}); },
        [&](Value slot, Value at) { return kb.load(vRing, {walk.kvHead, slot, at}); });
  };
  auto storeOut = [&](Value d, Value acc) {
    Value y = kb.fmul(acc, inv);
    Value at = kb.add(kb.mul(head, kb.index(hd)), kb.add(dimBase, d));
    if (op.getFold())
      y = kb.fmul(y, kb.load(kb.buffer(op.getFold()), {at}));
    kb.store(y, out, {at});
  };
  sumValueSlices(kb, dims, partials, weightedValues, nullptr, storeOut);
}

} // namespace kiln
