//===- Attention.cpp - Bounded attention over a ring, a workgroup per head ===//
//
// Key u < ns is sink u (scored against the un-rotated query); key ns + d is
// the ring row d steps back from the current slot. Scores live in workgroup
// memory (the verifier bounds their count), written by scoreKeys (a group of
// lanes a key, rows read whole, several keys' loads in flight); a max
// reduction, then weights with the e^-16 floor and a sum reduction. Then
// S = W / hd key slices of hd value lanes: lane d of slice s sums weight ·
// value over keys s, s + S, ... (16 keys' loads in flight); the slices'
// partial sums meet in workgroup memory. The workgroup is
// attention-workgroup-size wide: a head's keys and value dims spread over
// all of it.
//
//===----------------------------------------------------------------------===//
#include "KeyScores.h"

#include <cmath>

using namespace mlir;

namespace kiln {

/// Keys a value lane loads in one loop trip: a full window is ~128 keys a
/// lane (1,024 keys over 8 slices), each an f32 load the lane otherwise waits
/// for before the next (the H200 profile: 76 us a layer at a full window).
static constexpr int64_t kValueKeysInFlight = 16;

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
  // Shared by the scores' partial dots and the value slices' partial sums.
  const int64_t width = kb.getWorkgroupSize();
  Value partials = kb.workgroupBuffer(width);
  KeyScoring scoring;
  scoring.headDim = hd;
  scoring.count = total;
  scoring.scale = kb.f32(scale);
  scoring.query = [&](Value d) { return kb.load(qRot, {kb.add(qBase, d)}); };
  if (sinks > 0) {
    scoring.sinkQuery = [&](Value d) { return kb.load(qPlain, {kb.add(qBase, d)}); };
    scoring.sinkCount = kb.index(sinks);
  }
  // A sink key and a ring key both loaded (the sink at a clamped index, in
  // cache), so a lane's loads stay straight-line code.
  scoring.key = [&](Value u, Value d) {
    Value ring = kb.load(kRing, {kvHead, ringSlot(u), d});
    if (sinks == 0)
      return ring;
    Value isSink = kb.ult(u, kb.index(sinks));
    Value sinkRow = kb.select(isSink, u, kb.index(0));
    return kb.select(isSink, kb.load(sinkK, {kvHead, sinkRow, d}), ring);
  };
  scoring.scores = scores;
  scoring.partials = partials;
  Value maxScore = scoreKeys(kb, scoring, kb.f32(-3.4e38f));
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
  // Lane d of the slice whose keys are first, first + step, ...: its sinks,
  // then its ring keys kValueKeysInFlight a trip (the same order as one walk).
  auto weightedValues = [&](Value d, Value first, Value step) {
    Value acc = kb.f32(0.0f);
    Value ringFirst = first;
    if (sinks > 0) {
      acc = kb.sumSteps(first, kb.index(sinks), step, acc, 1, [&](Value u) {
        return kb.fmul(kb.load(scores, {u}), kb.load(sinkV, {kvHead, u, d}));
      });
      // The slice's first ring key: the first of its keys at or past the sinks.
      Value behind = kb.sub(kb.index(sinks), first);
      Value skip = kb.mul(kb.div(kb.add(behind, kb.sub(step, kb.index(1))), step), step);
      ringFirst = kb.select(kb.ult(first, kb.index(sinks)), kb.add(first, skip), first);
    }
    return kb.sumSteps(ringFirst, total, step, acc, kValueKeysInFlight, [&](Value u) {
      return kb.fmul(kb.load(scores, {u}), kb.load(vRing, {kvHead, ringSlot(u), d}));
    });
  };
  auto storeOut = [&](Value d, Value acc) {
    Value y = kb.fmul(acc, inv);
    Value at = kb.add(qBase, d);
    if (op.getFold())
      y = kb.fmul(y, kb.load(kb.buffer(op.getFold()), {at}));
    kb.store(y, out, {at});
  };
  sumValueSlices(kb, hd, partials, weightedValues, nullptr, storeOut);
}

} // namespace kiln
