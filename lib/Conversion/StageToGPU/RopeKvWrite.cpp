//===- RopeKvWrite.cpp - Rotary embedding and the KV ring write -----------===//
//
// One thread per query, key and value dim: a thread owning dim i < rd/2 of a
// head makes both rows of the rotated pair (i, i + rd/2); dims in
// [rd/2, rd) are written by their partner; dims >= rd pass through. The
// angle is position · rope_theta^(−2i/rd), position from the params buffer.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include <cmath>

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::RopeKvWriteOp op, const StageToGPUOptions &o) {
  int64_t threads = memrefSize(op.getQ(), 0) + 2 * memrefSize(op.getK(), 0);
  return {o.rowWorkgroupSize, ceilDiv(threads, o.rowWorkgroupSize)};
}

/// Writes rotated (x, y) pairs or passes a dim through; `read(i)` reads the
/// source at head-relative dim i, `write(i, v)` stores the result.
static void rotateDim(KernelBuilder &kb, Value rel, Value position,
                      int64_t rotaryDim, float theta,
                      const std::function<Value(Value)> &read,
                      const std::function<void(Value, Value)> &write) {
  int64_t half = rotaryDim / 2;
  kb.ifThenElse(
      kb.ult(rel, kb.index(half)),
      [&] {
        Value exponent = kb.fmul(kb.indexToF32(rel),
                                 kb.f32(-2.0f * std::log(theta) / float(rotaryDim)));
        Value angle = kb.fmul(kb.indexToF32(position), kb.exp(exponent));
        Value c = math::CosOp::create(kb.b, kb.loc, angle);
        Value s = math::SinOp::create(kb.b, kb.loc, angle);
        Value partner = kb.add(rel, kb.index(half));
        Value x = read(rel), y = read(partner);
        write(rel, kb.fsub(kb.fmul(x, c), kb.fmul(y, s)));
        write(partner, kb.fadd(kb.fmul(x, s), kb.fmul(y, c)));
      },
      [&] {
        kb.ifThen(kb.uge(rel, kb.index(rotaryDim)),
                  [&] { write(rel, read(rel)); });
      });
}

void buildKernel(stage::RopeKvWriteOp op, KernelBuilder &kb) {
  int64_t hd = memrefSize(op.getKRing(), 2), window = memrefSize(op.getKRing(), 1);
  int64_t qSize = memrefSize(op.getQ(), 0), kSize = memrefSize(op.getK(), 0);
  float theta = op.getRopeTheta().convertToFloat();
  int64_t rd = op.getRotaryDim();
  Value q = kb.buffer(op.getQ()), k = kb.buffer(op.getK()), v = kb.buffer(op.getV());
  Value qOut = kb.buffer(op.getQOut()), kRing = kb.buffer(op.getKRing()),
        vRing = kb.buffer(op.getVRing());
  Value position = kb.paramIndex(kb.buffer(op.getParams()), 1);
  Value slot = kb.rem(position, kb.index(window));
  Value t = kb.globalId();
  kb.ifThenElse(
      kb.ult(t, kb.index(qSize)),
      [&] {
        Value rel = kb.rem(t, kb.index(hd));
        Value base = kb.sub(t, rel);
        rotateDim(kb, rel, position, rd, theta,
                  [&](Value i) { return kb.load(q, {kb.add(base, i)}); },
                  [&](Value i, Value x) { kb.store(x, qOut, {kb.add(base, i)}); });
      },
      [&] {
        Value u = kb.sub(t, kb.index(qSize));
        kb.ifThenElse(
            kb.ult(u, kb.index(kSize)),
            [&] {
              Value rel = kb.rem(u, kb.index(hd));
              Value kvHead = kb.div(u, kb.index(hd));
              Value base = kb.sub(u, rel);
              rotateDim(kb, rel, position, rd, theta,
                        [&](Value i) { return kb.load(k, {kb.add(base, i)}); },
                        [&](Value i, Value x) {
                          kb.store(x, kRing, {kvHead, slot, i});
                        });
            },
            [&] {
              Value w = kb.sub(u, kb.index(kSize));
              kb.ifThen(kb.ult(w, kb.index(kSize)), [&] {
                Value rel = kb.rem(w, kb.index(hd));
                Value kvHead = kb.div(w, kb.index(hd));
                kb.store(kb.load(v, {w}), vRing, {kvHead, slot, rel});
              });
            });
      });
}

} // namespace kiln
