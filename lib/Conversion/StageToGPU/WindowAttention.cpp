//===- WindowAttention.cpp - Dory's near + far attention, split over dims -===//
//
// window_attention: a workgroup per (query head, slice of D head dims). Each
// reads the head's near scores (stage.key_scores wrote them: sinks, then the
// window newest first); the far part needs only m ≤ 32 landmark scores and
// gains, kept in workgroup memory, and the short serial sums over landmarks
// are run by every lane in the reference's order, so each lane holds the
// same c, F and decision without another reduction; the landmark dots spread
// over the workgroup and the far state those sums read (log-scales, masses,
// the inverse's used corner) is staged in workgroup memory first, so no
// serial step waits on global memory (they did: kv_attention took 12 us a
// layer before the first seal and 30 after, on the H200). The near weights go to
// workgroup memory; then W / D key slices of D value lanes sum the values
// (slice 0 also the far values), the slices meet in workgroup memory, and
// lane d normalises and gates.
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
/// Scores a thread holds in registers from the max pass to the weights pass
/// (one load each, all in flight at once); a longer row walks twice.
constexpr int64_t kMaxHeldScores = 8;

} // namespace

FarPart buildFarPart(stage::WindowAttentionOp op, KernelBuilder &kb, Value kvHead,
                     Value qBase, Value nearMax) {
  FarPart far;
  far.exponent = nearMax;
  far.mass = kb.f32(0.0f);
  far.count = kb.index(0);
  if (!op.getLandmarks())
    return far;
  int64_t hd = memrefSize(op.getVRing(), 2);
  Value scale = kb.f32(op.getScale().convertToFloat());
  Value q = kb.buffer(op.getQ());
  Value exponent = nearMax;
  Value farCount, farMass, useFar, gains, farSums;
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
  // The far state the serial sums below read, staged in workgroup memory
  // first (every load in flight at once) instead of one round trip to
  // global memory a step of each serial sum.
  Value logScales = kb.workgroupBuffer(m), masses = kb.workgroupBuffer(m),
        inverseHere = kb.workgroupBuffer(m * m);
  landmarkDots(kb, farCount, m, hd, scale, landmarkScores,
               [&](Value a, Value d) { return kb.load(landmarks, {kvHead, a, d}); },
               [&](Value d) { return kb.load(q, {kb.add(qBase, d)}); });
  kb.strided(farCount, [&](Value b) {
    // One load a statement (argument evaluation order is unspecified).
    Value logScale = kb.load(farSums, {kvHead, b, kb.index(0)});
    kb.store(logScale, logScales, {b});
    Value mass = kb.load(farSums, {kvHead, b, kb.index(1)});
    kb.store(mass, masses, {b});
  });
  // Only the farCount x farCount corner the sums read (none before the
  // first seal), at a·m + b.
  kb.strided(kb.mul(farCount, farCount), [&](Value i) {
    Value a = kb.div(i, farCount), b = kb.rem(i, farCount);
    kb.store(kb.load(inverse, {kvHead, a, b}), inverseHere,
             {kb.add(kb.mul(a, kb.index(m)), b)});
  });
  kb.barrier();
  Value f = serial(kb, farCount, kb.f32(kMostNegative), [&](Value a, Value acc) {
    return kb.fmax(acc, kb.load(landmarkScores, {a}));
  });
  auto logScale = [&](Value b) { return kb.load(logScales, {b}); };
  exponent = serial(kb, farCount, exponent, [&](Value b, Value acc) {
    return kb.fmax(acc, kb.fadd(f, logScale(b)));
  });
  Value c = exponent;
  kb.strided(farCount, [&](Value b) {
    Value u = serial(kb, farCount, kb.f32(0.0f), [&](Value a, Value acc) {
      Value e = kb.exp(kb.fsub(kb.load(landmarkScores, {a}), f));
      Value at = kb.add(kb.mul(a, kb.index(m)), b);
      return kb.fadd(acc, kb.fmul(e, kb.load(inverseHere, {at})));
    });
    if (op.getRectify())
      u = kb.fmax(u, kb.f32(0.0f));
    Value gain = kb.fmul(u, kb.exp(kb.fsub(kb.fadd(f, logScale(b)), c)));
    kb.store(gain, gains, {b});
  });
  kb.barrier();
  Value mass = serial(kb, farCount, kb.f32(0.0f), [&](Value b, Value acc) {
    Value gain = kb.load(gains, {b});
    return kb.fadd(acc, kb.fmul(gain, kb.load(masses, {b})));
  });
  // A negative far mass drops the far part, as the seed and the reference.
  useFar = andI(kb, farPresent, fge(kb, mass, kb.f32(0.0f)));
  farMass = kb.select(useFar, mass, kb.f32(0.0f));
  farCount = kb.select(useFar, farCount, kb.index(0));
  far.exponent = exponent;
  far.mass = farMass;
  far.count = farCount;
  far.gains = gains;
  far.farSums = farSums;
  return far;
}

Value addFarValues(KernelBuilder &kb, const FarPart &far, Value kvHead, Value dim, Value acc) {
  if (!far.farSums)
    return acc;
  Value thetaAt = kb.add(dim, kb.index(2));
  // In order, as the reference; a few terms a trip so their loads are in
  // flight together.
  return kb.sumSteps(kb.index(0), far.count, kb.index(1), acc, 4, [&](Value b) {
    Value gain = kb.load(far.gains, {b});
    return kb.fmul(gain, kb.load(far.farSums, {kvHead, b, thetaAt}));
  });
}

KernelShape shapeOf(stage::WindowAttentionOp op, const StageToGPUOptions &o) {
  int64_t hd = memrefSize(op.getVRing(), 2);
  int64_t heads = memrefSize(op.getQ(), 0) / hd;
  return {splitAttentionWidth(o), heads * (hd / dimsPerValueWorkgroup(hd, o))};
}

void buildKernel(stage::WindowAttentionOp op, KernelBuilder &kb) {
  int64_t kvh = memrefSize(op.getVRing(), 0), cap = memrefSize(op.getVRing(), 1),
          hd = memrefSize(op.getVRing(), 2);
  int64_t qh = memrefSize(op.getQ(), 0) / hd;
  int64_t window = static_cast<int64_t>(op.getWindow());
  const int64_t dims = dimsPerValueWorkgroup(hd, kb.options()), slices = hd / dims;
  Value scores = kb.buffer(op.getScores());
  Value vRing = kb.buffer(op.getVRing());
  Value out = kb.buffer(op.getOut());
  int64_t ns = op.getNumSinks();
  Value sinkV = ns > 0 ? kb.buffer(op.getSinkV()) : Value();
  Value weights = kb.workgroupBuffer(ns + window);
  Value partials = kb.workgroupBuffer(kb.getWorkgroupSize());

  Value head = kb.div(kb.workgroupId(), kb.index(slices));
  Value dimBase = kb.mul(kb.rem(kb.workgroupId(), kb.index(slices)), kb.index(dims));
  Value qBase = kb.mul(head, kb.index(hd));
  Value position = kb.paramIndex(kb.buffer(op.getParams()),
                                 static_cast<int64_t>(op.getPositionWord()));
  KeyWalk walk = walkKeys(kb, head, qh, kvh, cap, ns, position,
                          [&](int64_t) { return window; });
  Value kvHead = walk.kvHead;
  Value gate = kb.buffer(op.getGate()), gateScale = kb.buffer(op.getGateScale());
  // Where the slices meet (W >= 2·D), thread d < D stores dim d: its gate
  // and fold are loaded now, in flight beside the scores, not after the sums.
  const bool storeByThread = kb.getWorkgroupSize() >= 2 * dims;
  Value ownGate, ownFold;
  if (storeByThread) {
    Value ownDim = kb.min(kb.threadId(), kb.index(dims - 1));
    Value dimAt = kb.add(dimBase, ownDim);
    Value at = kb.add(qBase, dimAt);
    Value g = kb.load(gate, {at});
    Value gs = kb.load(gateScale, {at});
    ownGate = kb.sigmoid(kb.fmul(g, gs));
    if (op.getFold())
      ownFold = kb.load(kb.buffer(op.getFold()), {at});
  }
  // The thread's scores u = t, t + W, ... of the row's slots: held in
  // registers when few, those past the walk's keys left out.
  const int64_t keySlots = memrefSize(op.getScores(), 1);
  SmallVector<HeldElement> held;
  if (ceilDiv(keySlots, kb.getWorkgroupSize()) <= kMaxHeldScores)
    held = kb.held(keySlots);
  const bool holdScores = !held.empty();
  SmallVector<Value> heldValid, heldScores;
  Value localMax = kb.f32(kMostNegative);
  if (holdScores) {
    for (const HeldElement &e : held) {
      Value valid = kb.ult(e.index, walk.count);
      Value v = kb.load(scores, {head, e.safe});
      heldValid.push_back(valid);
      heldScores.push_back(kb.select(valid, v, kb.f32(kMostNegative)));
    }
    for (Value v : heldScores)
      localMax = kb.fmax(localMax, v);
  } else {
    localMax = kb.strided(walk.count, localMax, [&](Value u, Value m) {
      return kb.fmax(m, kb.load(scores, {head, u}));
    });
  }
  Value exponent = kb.reduce(localMax, ReduceKind::Max);

  // The far part (reference attendNearFar, seed dory_ofar).
  FarPart far = buildFarPart(op, kb, kvHead, qBase, exponent);
  exponent = far.exponent;
  Value farMass = far.mass;

  Value localSum;
  if (holdScores) {
    localSum = kb.f32(0.0f);
    for (auto [e, valid, v] : llvm::zip(held, heldValid, heldScores)) {
      Value w = kb.exp(kb.fsub(v, exponent));
      kb.ifThen(valid, [&, &e = e] { kb.store(w, weights, {e.index}); });
      localSum = kb.fadd(localSum, kb.select(valid, w, kb.f32(0.0f)));
    }
  } else {
    localSum = stridedCarried(kb, walk.count, kb.f32(0.0f), [&](Value u, Value s) {
      Value w = kb.exp(kb.fsub(kb.load(scores, {head, u}), exponent));
      kb.store(w, weights, {u});
      return kb.fadd(s, w);
    });
  }
  // The reduction's barriers also publish every lane's weights.
  Value nearMass = kb.reduce(localSum, ReduceKind::Add);
  Value inv = kb.fdiv(kb.f32(1.0f),
                      kb.fmax(kb.fadd(nearMass, farMass), kb.f32(1e-30f)));
  // Lane d of slice `first` sums keys first, first + step, ...; slice 0 also
  // takes the far part.
  auto weightedValues = [&](Value d, Value first, Value step, bool withFar) {
    Value dim = kb.add(dimBase, d);
    Value acc = sumWeightedValues(
        kb, walk, dim, first, step, kb.f32(0.0f),
        [&](Value u) { return kb.load(weights, {u}); },
        [&](Value u, Value at) { return kb.load(sinkV, {kvHead, u, at}); },
        [&](Value slot, Value at) { return kb.load(vRing, {kvHead, slot, at}); });
    return withFar ? addFarValues(kb, far, kvHead, dim, acc) : acc;
  };
  auto storeOut = [&](Value d, Value acc) {
    Value dimAt = kb.add(dimBase, d);
    Value at = kb.add(qBase, dimAt);
    Value scaled = kb.fmul(acc, inv);
    Value y;
    if (storeByThread) { // d is this thread: its gate and fold are loaded.
      y = kb.fmul(scaled, ownGate);
      if (op.getFold())
        y = kb.fmul(y, ownFold);
    } else {
      Value g = kb.load(gate, {at});
      Value gs = kb.load(gateScale, {at});
      y = kb.fmul(scaled, kb.sigmoid(kb.fmul(g, gs)));
      if (op.getFold())
        y = kb.fmul(y, kb.load(kb.buffer(op.getFold()), {at}));
    }
    kb.store(y, out, {at});
  };
  sumValueSlices(
      kb, dims, partials,
      [&](Value d, Value first, Value step) { return weightedValues(d, first, step, false); },
      [&](Value d, Value step) { return weightedValues(d, kb.index(0), step, true); },
      storeOut);
}

} // namespace kiln
