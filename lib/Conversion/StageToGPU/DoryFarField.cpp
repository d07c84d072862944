//===- DoryFarField.cpp - Dory's far-field push -----------------------------===//
//
// window_attention, which reads the far field, is in WindowAttention.cpp.
//
// far_field_push: a workgroup per KV head. Phase one computes, per landmark,
// the new log-scale, the rescale of what is held and the new key's weight
// into workgroup memory; after a barrier phase two updates z, n, θ. Every
// lane reads the KV head's meta words before the barrier that precedes the
// one lane writing them.
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
  return {o.headWorkgroupSize, memrefSize(op.getKRing(), 0)};
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
        weight = kb.workgroupBuffer(m);
  kb.strided(count, [&](Value b) {
    Value s = kb.fmul(
        kb.dot(hd, [&](Value d) { return kb.load(landmarks, {kvHead, b, d}); },
                [&](Value d) { return kb.load(kRing, {kvHead, slot, d}); }),
        scale);
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
  kb.strided(kb.mul(count, kb.index(hd)), [&](Value i) {
    Value b = kb.div(i, kb.index(hd)), d = kb.rem(i, kb.index(hd));
    Value at = kb.add(d, kb.index(2));
    Value theta = kb.load(sums, {kvHead, b, at});
    Value v = kb.load(vRing, {kvHead, slot, d});
    Value weighted = kb.fmul(kb.load(weight, {b}), v);
    Value rescaled = kb.fmul(theta, kb.load(rescale, {b}));
    kb.store(kb.fadd(rescaled, weighted), sums, {kvHead, b, at});
  });
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
