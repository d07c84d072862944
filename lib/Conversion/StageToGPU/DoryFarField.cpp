//===- DoryFarField.cpp - Dory's far-field push -----------------------------===//
//
// window_attention, which reads the far field, is in WindowAttention.cpp.
//
// far_field_push: a workgroup per KV head. The leaving key's landmark scores
// are dots spread over the workgroup (landmarkDots); phase one computes, per
// landmark, the new log-scale, the rescale of what is held and the new key's
// weight into workgroup memory; after a barrier phase two updates z, n, and θ
// with each thread's elements held in registers, their loads in flight
// together (a 64-thread walk of m x head_dim elements made each lane wait for
// 32 round trips in turn: 25.8 us a push on the H200, 4.4 before the window
// fills). Every lane reads the KV head's meta words before the barrier that
// precedes the one lane writing them.
//
//===----------------------------------------------------------------------===//
#include "DoryFarField.h"

using namespace mlir;

namespace kiln {

namespace farfield {

Value metaIndex(KernelBuilder &kb, Value meta, Value word) {
  Value raw = kb.load(meta, {word});
  return arith::IndexCastUIOp::create(kb.b, kb.loc, kb.b.getIndexType(), raw);
}
Value ne(KernelBuilder &kb, Value a, Value c) {
  return arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::ne, a, c);
}
Value andI(KernelBuilder &kb, Value a, Value c) {
  return arith::AndIOp::create(kb.b, kb.loc, a, c);
}
Value fge(KernelBuilder &kb, Value a, Value c) {
  return arith::CmpFOp::create(kb.b, kb.loc, arith::CmpFPredicate::OGE, a, c);
}

void landmarkDots(KernelBuilder &kb, Value count, int64_t m, int64_t hd, Value scale,
                  Value dots, const std::function<Value(Value, Value)> &landmarkAt,
                  const std::function<Value(Value)> &vectorAt) {
  // `lanes` threads a landmark, each summing every lanes-th dim; at most the
  // workgroup's threads in all and no more lanes than dims.
  int64_t lanes = 1;
  while (lanes * 2 * m <= kb.getWorkgroupSize() && lanes * 2 <= hd)
    lanes *= 2;
  int64_t unroll = std::min<int64_t>(8, ceilDiv(hd, lanes));
  Value partials = kb.workgroupBuffer(m * lanes);
  kb.strided(kb.mul(count, kb.index(lanes)), [&](Value i) {
    Value b = kb.div(i, kb.index(lanes));
    Value part = kb.sumSteps(kb.rem(i, kb.index(lanes)), kb.index(hd), kb.index(lanes),
                             kb.f32(0.0f), unroll, [&](Value d) {
                               return kb.fmul(landmarkAt(b, d), vectorAt(d));
                             });
    kb.store(part, partials, {i});
  });
  kb.barrier();
  kb.strided(count, [&](Value b) {
    Value base = kb.mul(b, kb.index(lanes));
    Value sum = kb.load(partials, {base});
    for (int64_t p = 1; p < lanes; ++p)
      sum = kb.fadd(sum, kb.load(partials, {kb.add(base, kb.index(p))}));
    kb.store(kb.fmul(sum, scale), dots, {b});
  });
}

} // namespace farfield

namespace {

using namespace farfield;

void storeMeta(KernelBuilder &kb, Value value, Value meta, Value word) {
  Value asI32 =
      arith::IndexCastUIOp::create(kb.b, kb.loc, kb.b.getI32Type(), value);
  kb.store(asI32, meta, {word});
}

Value eq(KernelBuilder &kb, Value a, Value c) {
  return arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq, a, c);
}
Value fgt(KernelBuilder &kb, Value a, Value c) {
  return arith::CmpFOp::create(kb.b, kb.loc, arith::CmpFPredicate::OGT, a, c);
}

} // namespace

//===----------------------------------------------------------------------===//
// far_field_push
//===----------------------------------------------------------------------===//

KernelShape shapeOf(stage::FarFieldPushOp op, const StageToGPUOptions &o) {
  // The reduce width: the landmark dots and the θ update spread over it.
  return {o.reduceWorkgroupSize, memrefSize(op.getKRing(), 0)};
}

void buildKernel(stage::FarFieldPushOp op, KernelBuilder &kb) {
  int64_t cap = memrefSize(op.getKRing(), 1), hd = memrefSize(op.getKRing(), 2);
  int64_t m = memrefSize(op.getLandmarks(), 1);
  int64_t window = static_cast<int64_t>(op.getWindow());
  Value scale = kb.f32(op.getScale().convertToFloat());
  Value kRing = kb.buffer(op.getKRing()), vRing = kb.buffer(op.getVRing());
  Value landmarks = kb.buffer(op.getLandmarks());
  Value sums = kb.buffer(op.getFarSums()), meta = kb.buffer(op.getFarMeta());

  Value kvHead = kb.workgroupId();
  Value position = kb.paramIndex(kb.buffer(op.getParams()),
                                 static_cast<int64_t>(op.getPositionWord()));
  Value metaBase = kb.mul(kvHead, kb.index(3));
  Value countWord = metaBase, nextWord = kb.add(metaBase, kb.index(1)),
        foldedWord = kb.add(metaBase, kb.index(2));
  Value sealedCount = metaIndex(kb, meta, countWord);
  Value next = metaIndex(kb, meta, nextWord);
  Value folded = metaIndex(kb, meta, foldedWord);
  // Key j = position − window leaves now; it is folded unless already done.
  Value leaving = kb.sub(position, kb.index(window));
  Value due = andI(kb, kb.uge(position, kb.index(window)), kb.uge(leaving, next));
  Value fold = andI(kb, due, ne(kb, sealedCount, kb.index(0)));
  Value count = kb.select(fold, sealedCount, kb.index(0));
  Value slot = kb.rem(leaving, kb.index(cap));
  Value first = eq(kb, folded, kb.index(0));

  Value newScale = kb.workgroupBuffer(m), rescale = kb.workgroupBuffer(m),
        weight = kb.workgroupBuffer(m), scores = kb.workgroupBuffer(m);
  landmarkDots(kb, count, m, hd, scale, scores,
               [&](Value b, Value d) { return kb.load(landmarks, {kvHead, b, d}); },
               [&](Value d) { return kb.load(kRing, {kvHead, slot, d}); });
  // Lane b wrote scores[b] itself (the same strided walk): no barrier.
  kb.strided(count, [&](Value b) {
    Value s = kb.load(scores, {b});
    Value z = kb.load(sums, {kvHead, b, kb.index(0)});
    // Nothing folded yet: z is −∞ in the reference, so s is a new maximum
    // and what is held (zero) is scaled by exp(−∞) = 0.
    Value isNewMax = arith::OrIOp::create(kb.b, kb.loc, first, fgt(kb, s, z));
    Value held = kb.select(first, kb.f32(0.0f), kb.exp(kb.fsub(z, s)));
    Value zNew = kb.select(isNewMax, s, z);
    kb.store(zNew, newScale, {b});
    kb.store(kb.select(isNewMax, held, kb.f32(1.0f)), rescale, {b});
    kb.store(kb.exp(kb.fsub(s, zNew)), weight, {b});
  });
  kb.barrier();
  kb.strided(count, [&](Value b) {
    kb.store(kb.load(newScale, {b}), sums, {kvHead, b, kb.index(0)});
    Value n = kb.load(sums, {kvHead, b, kb.index(1)});
    // One load a statement (argument evaluation order is unspecified).
    Value w = kb.load(weight, {b});
    Value r = kb.load(rescale, {b});
    kb.store(kb.fadd(kb.fmul(n, r), w), sums, {kvHead, b, kb.index(1)});
  });
  // θ_b += w_b · v_j after θ_b ·= r_b, over count x hd elements: held in
  // registers where they fit, so a lane's loads are in flight together
  // instead of one round trip an element.
  Value total = kb.mul(count, kb.index(hd));
  // Element i = b·hd + d: its place sums[kvHead, b, 2 + d] and its new value.
  auto update = [&](Value i) -> std::pair<SmallVector<Value>, Value> {
    Value b = kb.div(i, kb.index(hd)), d = kb.rem(i, kb.index(hd));
    SmallVector<Value> at = {kvHead, b, kb.add(d, kb.index(2))};
    Value theta = kb.load(sums, at);
    Value v = kb.load(vRing, {kvHead, slot, d});
    Value weighted = kb.fmul(kb.load(weight, {b}), v);
    Value rescaled = kb.fmul(theta, kb.load(rescale, {b}));
    return {at, kb.fadd(rescaled, weighted)};
  };
  if (SmallVector<HeldElement> held = kb.held(m * hd); !held.empty()) {
    kb.ifThen(ne(kb, count, kb.index(0)), [&] {
      SmallVector<std::pair<SmallVector<Value>, Value>> next;
      for (const HeldElement &e : held)
        next.push_back(update(e.safe));
      // Below total (≤ m·hd) an element's safe index is its index.
      for (auto [e, u] : llvm::zip(held, next))
        kb.ifThen(kb.ult(e.index, total), [&, &u = u] { kb.store(u.second, sums, u.first); });
    });
  } else {
    kb.strided(total, [&](Value i) {
      auto [at, value] = update(i);
      kb.store(value, sums, at);
    });
  }
  // Every lane has read the meta words above; only then may they change.
  kb.barrier();
  kb.ifThen(andI(kb, eq(kb, kb.threadId(), kb.index(0)), due), [&] {
    storeMeta(kb, kb.add(leaving, kb.index(1)), meta, nextWord);
    kb.ifThen(fold, [&] {
      storeMeta(kb, kb.add(folded, kb.index(1)), meta, foldedWord);
    });
  });
}

} // namespace kiln
