//===- WindowAttention.cpp - Dory's near + far attention, a head a workgroup ===//
//
// window_attention: a workgroup per query head. Near scores (the sinks'
// first, then the window's) go to workgroup memory (scoreKeys: a group of
// lanes a key, so the window may exceed the workgroup size);
// the far part needs only m ≤ 32 landmark scores and gains, kept in
// workgroup memory too, and the short serial sums over landmarks are run by
// every lane in the reference's order, so each lane holds the same c, F and
// decision without another reduction. Then W / hd slices of hd value lanes sum
// the near values (slice 0 also the sinks and the far values), the slices meet
// in workgroup memory, and lane d normalises and gates.
//
//===----------------------------------------------------------------------===//
#include "DoryFarField.h"
#include "KeyScores.h"

using namespace mlir;

namespace kiln {

namespace {

using namespace farfield;

/// A serial loop over [0, count) carrying one f32 (count may be 0).
Value serial(KernelBuilder &kb, Value count, Value init,
             const std::function<Value(Value, Value)> &body) {
  return carriedLoop(kb, kb.index(0), count, init, body);
}

constexpr float kMostNegative = -3.4e38f;

/// Near keys a value lane loads in one loop trip (each an f32 load it would
/// otherwise wait for before the next; a full window is ~128 keys a lane).
constexpr int64_t kValueKeysInFlight = 16;

} // namespace

// A workgroup per query head, attention-workgroup-size wide: its keys and value
// dims spread over all of it (S = W / hd slices of the near keys in the value
// phase, their partial sums meeting in workgroup memory).
KernelShape shapeOf(stage::WindowAttentionOp op, const StageToGPUOptions &o) {
  int64_t hd = memrefSize(op.getKRing(), 2);
  return {o.attentionWorkgroupSize, memrefSize(op.getQ(), 0) / hd};
}

void buildKernel(stage::WindowAttentionOp op, KernelBuilder &kb) {
  int64_t kvh = memrefSize(op.getKRing(), 0), cap = memrefSize(op.getKRing(), 1),
          hd = memrefSize(op.getKRing(), 2);
  int64_t qh = memrefSize(op.getQ(), 0) / hd;
  int64_t window = static_cast<int64_t>(op.getWindow());
  Value scale = kb.f32(op.getScale().convertToFloat());
  Value q = kb.buffer(op.getQ());
  Value kRing = kb.buffer(op.getKRing()), vRing = kb.buffer(op.getVRing());
  Value out = kb.buffer(op.getOut());
  // Sinks take scores [0, ns), the window's keys [ns, ns + nearCount).
  int64_t ns = op.getNumSinks();
  Value sinkK = ns > 0 ? kb.buffer(op.getSinkK()) : Value();
  Value sinkV = ns > 0 ? kb.buffer(op.getSinkV()) : Value();
  Value scores = kb.workgroupBuffer(ns + window);

  Value head = kb.workgroupId();
  Value kvHead = kb.div(head, kb.index(qh / kvh));
  Value qBase = kb.mul(head, kb.index(hd));
  Value position = kb.paramIndex(kb.buffer(op.getParams()),
                                 static_cast<int64_t>(op.getPositionWord()));
  // Near keys low … position; key u of the walk is position low + u.
  Value top = kb.add(position, kb.index(1));
  Value low = kb.select(kb.ult(top, kb.index(window)), kb.index(0),
                        kb.sub(top, kb.index(window)));
  Value nearCount = kb.sub(top, low);
  auto slotOf = [&](Value u) { return kb.rem(kb.add(low, u), kb.index(cap)); };
  // Where near key u's score lives (no extra op without sinks).
  auto nearAt = [&](Value u) { return ns > 0 ? kb.add(u, kb.index(ns)) : u; };
  Value keyCount = ns > 0 ? kb.add(nearCount, kb.index(ns)) : nearCount;

  // Sinks and window keys in one walk: key u < ns is sink u, else window
  // key u − ns (a sink is loaded at a clamped row beside, so loads stay
  // straight-line code). `partials` also takes the value slices' sums.
  Value partials = kb.workgroupBuffer(kb.getWorkgroupSize());
  KeyScoring scoring;
  scoring.headDim = hd;
  scoring.count = keyCount;
  scoring.scale = scale;
  scoring.query = [&](Value d) { return kb.load(q, {kb.add(qBase, d)}); };
  scoring.key = [&](Value u, Value d) {
    if (ns == 0)
      return kb.load(kRing, {kvHead, slotOf(u), d});
    Value isSink = kb.ult(u, kb.index(ns));
    Value near = kb.select(isSink, kb.index(0), kb.sub(u, kb.index(ns)));
    Value ring = kb.load(kRing, {kvHead, slotOf(near), d});
    Value sinkRow = kb.select(isSink, u, kb.index(0));
    return kb.select(isSink, kb.load(sinkK, {kvHead, sinkRow, d}), ring);
  };
  scoring.scores = scores;
  scoring.partials = partials;
  Value exponent = scoreKeys(kb, scoring, kb.f32(kMostNegative));

  // The far part (reference attendNearFar, seed dory_ofar).
  Value farCount = kb.index(0), farMass = kb.f32(0.0f), useFar, gains, farSums;
  if (op.getLandmarks()) {
    int64_t m = memrefSize(op.getLandmarks(), 1);
    Value landmarks = kb.buffer(op.getLandmarks());
    Value inverse = kb.buffer(op.getInverse());
    farSums = kb.buffer(op.getFarSums());
    Value meta = kb.buffer(op.getFarMeta());
    Value metaBase = kb.mul(kvHead, kb.index(3));
    Value sealedCount = metaIndex(kb, meta, metaBase);
    Value folded = metaIndex(kb, meta, kb.add(metaBase, kb.index(2)));
    Value farPresent = andI(kb, ne(kb, sealedCount, kb.index(0)),
                            ne(kb, folded, kb.index(0)));
    farCount = kb.select(farPresent, sealedCount, kb.index(0));
    Value landmarkScores = kb.workgroupBuffer(m);
    gains = kb.workgroupBuffer(m);
    kb.strided(farCount, [&](Value a) {
      Value s = kb.fmul(
          kb.dot(hd, [&](Value d) { return kb.load(landmarks, {kvHead, a, d}); },
                  [&](Value d) { return kb.load(q, {kb.add(qBase, d)}); }),
          scale);
      kb.store(s, landmarkScores, {a});
    });
    kb.barrier();
    Value f = serial(kb, farCount, kb.f32(kMostNegative), [&](Value a, Value acc) {
      return kb.fmax(acc, kb.load(landmarkScores, {a}));
    });
    auto logScale = [&](Value b) { return kb.load(farSums, {kvHead, b, kb.index(0)}); };
    exponent = serial(kb, farCount, exponent, [&](Value b, Value acc) {
      return kb.fmax(acc, kb.fadd(f, logScale(b)));
    });
    Value c = exponent;
    kb.strided(farCount, [&](Value b) {
      Value u = serial(kb, farCount, kb.f32(0.0f), [&](Value a, Value acc) {
        Value e = kb.exp(kb.fsub(kb.load(landmarkScores, {a}), f));
        return kb.fadd(acc, kb.fmul(e, kb.load(inverse, {kvHead, a, b})));
      });
      if (op.getRectify())
        u = kb.fmax(u, kb.f32(0.0f));
      Value gain = kb.fmul(u, kb.exp(kb.fsub(kb.fadd(f, logScale(b)), c)));
      kb.store(gain, gains, {b});
    });
    kb.barrier();
    Value mass = serial(kb, farCount, kb.f32(0.0f), [&](Value b, Value acc) {
      Value n = kb.load(farSums, {kvHead, b, kb.index(1)});
      return kb.fadd(acc, kb.fmul(kb.load(gains, {b}), n));
    });
    // A negative far mass drops the far part, as the seed and the reference.
    useFar = andI(kb, farPresent, fge(kb, mass, kb.f32(0.0f)));
    farMass = kb.select(useFar, mass, kb.f32(0.0f));
    farCount = kb.select(useFar, farCount, kb.index(0));
  }

  Value localSum = stridedCarried(kb, keyCount, kb.f32(0.0f), [&](Value u, Value s) {
    Value w = kb.exp(kb.fsub(kb.load(scores, {u}), exponent));
    kb.store(w, scores, {u});
    return kb.fadd(s, w);
  });
  // The reduction's barriers also publish every lane's weights.
  Value nearMass = kb.reduce(localSum, ReduceKind::Add);
  Value inv = kb.fdiv(kb.f32(1.0f),
                      kb.fmax(kb.fadd(nearMass, farMass), kb.f32(1e-30f)));
  Value gate = kb.buffer(op.getGate()), gateScale = kb.buffer(op.getGateScale());
  // Lane d of slice `first` sums near keys first, first + step, ...; slice 0
  // also takes the sinks and the far part.
  auto weightedValues = [&](Value d, Value first, Value step, bool withRest) {
    Value acc = kb.f32(0.0f);
    if (withRest && ns > 0)
      acc = serial(kb, kb.index(ns), acc, [&](Value u, Value a) {
        return kb.fadd(a, kb.fmul(kb.load(scores, {u}),
                                  kb.load(sinkV, {kvHead, u, d})));
      });
    acc = kb.sumSteps(first, nearCount, step, acc, kValueKeysInFlight, [&](Value u) {
      return kb.fmul(kb.load(scores, {nearAt(u)}), kb.load(vRing, {kvHead, slotOf(u), d}));
    });
    if (withRest && op.getLandmarks()) {
      Value thetaAt = kb.add(d, kb.index(2));
      acc = serial(kb, farCount, acc, [&](Value b, Value a) {
        return kb.fadd(a, kb.fmul(kb.load(gains, {b}),
                                  kb.load(farSums, {kvHead, b, thetaAt})));
      });
    }
    return acc;
  };
  auto storeOut = [&](Value d, Value acc) {
    Value at = kb.add(qBase, d);
    Value y = kb.fmul(kb.fmul(acc, inv),
                      kb.sigmoid(kb.fmul(kb.load(gate, {at}),
                                         kb.load(gateScale, {at}))));
    if (op.getFold())
      y = kb.fmul(y, kb.load(kb.buffer(op.getFold()), {at}));
    kb.store(y, out, {at});
  };
  sumValueSlices(
      kb, hd, partials,
      [&](Value d, Value first, Value step) { return weightedValues(d, first, step, false); },
      [&](Value d, Value step) { return weightedValues(d, kb.index(0), step, true); },
      storeOut);
}

} // namespace kiln
