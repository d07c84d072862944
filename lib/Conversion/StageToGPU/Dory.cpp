//===- Dory.cpp - Dory's prep, slerp residual and loop edges ---------------===//
//
// All three normalise whole vectors, so each runs a workgroup per vector
// (per head for prep, one for the hidden row) and reduces squares there. A
// lane re-reads only values it wrote itself between the passes.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include <cmath>

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::DoryPrepOp op, const StageToGPUOptions &o) {
  int64_t hd = memrefSize(op.getKRing(), 2);
  return {o.headWorkgroupSize,
          memrefSize(op.getQ(), 0) / hd + memrefSize(op.getK(), 0) / hd};
}

void buildKernel(stage::DoryPrepOp op, KernelBuilder &kb) {
  int64_t hd = memrefSize(op.getKRing(), 2), cap = memrefSize(op.getKRing(), 1);
  int64_t qh = memrefSize(op.getQ(), 0) / hd, half = hd / 2;
  float theta = op.getRopeTheta().convertToFloat();
  Value eps = kb.f32(op.getEps().convertToFloat());
  Value position = kb.paramIndex(kb.buffer(op.getParams()), 1);
  Value slot = kb.rem(position, kb.index(cap));
  Value head = kb.workgroupId();
  Value sQk = kb.buffer(op.getSQk());

  // Rotates pairs (i, i + hd/2) of `read`, stores them through `write`, and
  // returns this lane's sum of squares.
  auto rotate = [&](const std::function<Value(Value)> &read,
                    const std::function<void(Value, Value)> &write) {
    return kb.strided(kb.index(half), kb.f32(0.0f), [&](Value i, Value acc) {
      Value exponent = kb.fmul(kb.indexToF32(i),
                               kb.f32(-2.0f * std::log(theta) / float(hd)));
      Value angle = kb.fmul(kb.indexToF32(position), kb.exp(exponent));
      Value c = math::CosOp::create(kb.b, kb.loc, angle);
      Value s = math::SinOp::create(kb.b, kb.loc, angle);
      Value j = kb.add(i, kb.index(half));
      Value x = read(i), y = read(j);
      Value u = kb.fsub(kb.fmul(x, c), kb.fmul(y, s));
      Value v = kb.fadd(kb.fmul(y, c), kb.fmul(x, s));
      write(i, u);
      write(j, v);
      return kb.fadd(acc, kb.fadd(kb.fmul(u, u), kb.fmul(v, v)));
    });
  };
  kb.ifThenElse(
      kb.ult(head, kb.index(qh)),
      [&] {
        Value q = kb.buffer(op.getQ()), qOut = kb.buffer(op.getQOut());
        Value base = kb.mul(head, kb.index(hd));
        Value local = rotate(
            [&](Value i) { return kb.load(q, {kb.add(base, i)}); },
            [&](Value i, Value x) { kb.store(x, qOut, {kb.add(base, i)}); });
        Value inv = kb.rsqrt(kb.fadd(kb.reduce(local, ReduceKind::Add), eps));
        // landmark_capture inside the prep: the workgroup of a KV group's
        // first query head also keeps its prepped query as landmark
        // pos / stride while the KV head is unsealed (uniform per workgroup).
        Value capture, landmarks, kvHead, slotOfLandmark;
        if (op.getLandmarks()) {
          int64_t group = qh / memrefSize(op.getKRing(), 0);
          int64_t m = memrefSize(op.getLandmarks(), 1);
          int64_t stride = *op.getLandmarkStride();
          landmarks = kb.buffer(op.getLandmarks());
          kvHead = kb.div(head, kb.index(group));
          slotOfLandmark = kb.div(position, kb.index(stride));
          Value meta = kb.buffer(op.getFarMeta());
          Value countWord = kb.mul(kvHead, kb.index(3));
          Value count = kb.load(meta, {countWord});
          Value unsealed = arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq,
                                                 count, kb.i32(0));
          Value lead = kb.ult(kb.rem(head, kb.index(group)), kb.index(1));
          Value onStride = kb.ult(kb.rem(position, kb.index(stride)), kb.index(1));
          Value inRange = kb.ult(slotOfLandmark, kb.index(m));
          capture = arith::AndIOp::create(kb.b, kb.loc, unsealed, lead);
          capture = arith::AndIOp::create(kb.b, kb.loc, capture, onStride);
          capture = arith::AndIOp::create(kb.b, kb.loc, capture, inRange);
        }
        kb.strided(kb.index(hd), [&](Value i) {
          Value at = kb.add(base, i);
          // One load a statement: argument evaluation order is unspecified.
          Value scale = kb.load(sQk, {head, i});
          Value y = kb.fmul(kb.fmul(kb.load(qOut, {at}), inv), scale);
          kb.store(y, qOut, {at});
          if (capture)
            kb.ifThen(capture, [&] { kb.store(y, landmarks, {kvHead, slotOfLandmark, i}); });
        });
      },
      [&] {
        Value kvHead = kb.sub(head, kb.index(qh));
        Value k = kb.buffer(op.getK()), v = kb.buffer(op.getV());
        Value kRing = kb.buffer(op.getKRing()), vRing = kb.buffer(op.getVRing());
        Value base = kb.mul(kvHead, kb.index(hd));
        Value local = rotate(
            [&](Value i) { return kb.load(k, {kb.add(base, i)}); },
            [&](Value i, Value x) { kb.store(x, kRing, {kvHead, slot, i}); });
        Value inv = kb.rsqrt(kb.fadd(kb.reduce(local, ReduceKind::Add), eps));
        kb.strided(kb.index(hd), [&](Value i) {
          Value at = kb.add(base, i);
          // Dim i may have been written by another lane (pairs are strided
          // over hd/2, this loop over hd): the reduction's barriers, which
          // the SPIR-V target widens to storage memory, order those writes.
          kb.store(kb.fmul(kb.load(kRing, {kvHead, slot, i}), inv), kRing,
                   {kvHead, slot, i});
          kb.store(kb.load(v, {at}), vRing, {kvHead, slot, i});
        });
      });
}

/// A walk over the hidden row, kMaxHeldPerThread of a thread's elements a
/// trip with their loads first (RowWalk::load), then the trip's elements in
/// order (RowWalk::visit, which may store and returns what it adds to the
/// sums): a tail at a mat-vec's 64 threads walks 2,048 values, 32 a thread,
/// where strided() would wait for each load before the next.
struct RowWalk {
  std::function<SmallVector<Value>(const HeldElement &)> load;
  std::function<SmallVector<Value>(ArrayRef<Value>, const HeldElement &)> visit;
};

/// A RowWalk::load of each of `rows` at the element, in that order.
static std::function<SmallVector<Value>(const HeldElement &)>
loadRows(KernelBuilder &kb, SmallVector<Value> rows) {
  return [&kb, rows](const HeldElement &e) {
    SmallVector<Value> values;
    for (Value row : rows)
      values.push_back(kb.loadHeld(row, e));
    return values;
  };
}

/// The thread's sums of what `walk` visits (one a value visit returns).
static SmallVector<Value> walkRow(KernelBuilder &kb, int64_t size, int64_t sums,
                                  const RowWalk &walk) {
  SmallVector<Value> init(sums, kb.f32(0.0f));
  return kb.stridedTrips(
      size, kMaxHeldPerThread, init, walk.load,
      [&](ValueRange acc, ArrayRef<Value> loaded, const HeldElement &e) {
        SmallVector<Value> next(acc.begin(), acc.end());
        for (auto [sum, term] : llvm::zip(next, walk.visit(loaded, e)))
          sum = kb.fadd(sum, term);
        return next;
      });
}

/// Σ v² over each of `rows`, reduced over the workgroup in one round.
static SmallVector<Value> sumSquares(KernelBuilder &kb, ArrayRef<Value> rows, int64_t size) {
  return kb.reduceMany(walkRow(
      kb, size, rows.size(),
      {loadRows(kb, SmallVector<Value>(rows.begin(), rows.end())),
       [&](ArrayRef<Value> values, const HeldElement &) {
         SmallVector<Value> squares;
         for (Value v : values)
           squares.push_back(kb.fmul(v, v));
         return squares;
       }}));
}

/// row *= scale, each thread over the elements it walked before.
static void scaleRow(KernelBuilder &kb, Value row, int64_t size, Value scale) {
  walkRow(kb, size, 0,
          {loadRows(kb, {row}),
           [&](ArrayRef<Value> v, const HeldElement &e) {
             kb.storeHeld(kb.fmul(v[0], scale), row, e);
             return SmallVector<Value>{};
           }});
}

KernelShape shapeOf(stage::SlerpOp, const StageToGPUOptions &o) {
  return {o.reduceWorkgroupSize, 1};
}

void buildKernel(stage::SlerpOp op, KernelBuilder &kb) {
  int64_t size = memrefSize(op.getHidden(), 0);
  Value eps = kb.f32(op.getEps().convertToFloat());
  Value h = kb.buffer(op.getHidden()), o = kb.buffer(op.getUpdate());
  Value alpha = kb.buffer(op.getAlpha());
  if (SmallVector<HeldElement> held = kb.held(size); !held.empty()) {
    // The thread's values stay in registers: both norms in one reduction
    // round, one store of h (9.3 us a slerp on the H200 as three strided
    // passes, docs/performance.md).
    SmallVector<Value> hs, os, as, hSquares, oSquares;
    for (const HeldElement &e : held) {
      hs.push_back(kb.loadHeld(h, e));
      os.push_back(kb.loadHeld(o, e));
      as.push_back(kb.loadHeld(alpha, e));
      hSquares.push_back(kb.fmul(hs.back(), hs.back()));
      oSquares.push_back(kb.fmul(os.back(), os.back()));
    }
    SmallVector<Value> norms = kb.reduceMany({kb.sum(hSquares), kb.sum(oSquares)});
    Value invH = kb.rsqrt(kb.fadd(norms[0], eps));
    Value invO = kb.rsqrt(kb.fadd(norms[1], eps));
    SmallVector<Value> ys, ySquares;
    for (auto [hv, ov, av] : llvm::zip(hs, os, as)) {
      Value a = kb.fmul(hv, invH);
      ys.push_back(kb.fadd(a, kb.fmul(av, kb.fsub(kb.fmul(ov, invO), a))));
      ySquares.push_back(kb.fmul(ys.back(), ys.back()));
    }
    Value inv = kb.rsqrt(kb.fadd(kb.reduce(kb.sum(ySquares), ReduceKind::Add), eps));
    for (auto [e, y] : llvm::zip(held, ys))
      kb.storeHeld(kb.fmul(y, inv), h, e);
    return;
  }
  // Too long to hold (a tail at a narrow mat-vec's width): three walks, the
  // thread re-reading only what it wrote.
  SmallVector<Value> norms = sumSquares(kb, {h, o}, size);
  Value invH = kb.rsqrt(kb.fadd(norms[0], eps));
  Value invO = kb.rsqrt(kb.fadd(norms[1], eps));
  Value local = walkRow(
      kb, size, 1,
      {loadRows(kb, {h, o, alpha}),
       [&](ArrayRef<Value> hoa, const HeldElement &e) {
         Value a = kb.fmul(hoa[0], invH);
         Value y = kb.fadd(a, kb.fmul(hoa[2], kb.fsub(kb.fmul(hoa[1], invO), a)));
         kb.storeHeld(y, h, e);
         return SmallVector<Value>{kb.fmul(y, y)};
       }})[0];
  Value inv = kb.rsqrt(kb.fadd(kb.reduce(local, ReduceKind::Add), eps));
  scaleRow(kb, h, size, inv);
}

KernelShape shapeOf(stage::DoryMixOp, const StageToGPUOptions &o) {
  return {o.reduceWorkgroupSize, 1};
}

void buildKernel(stage::DoryMixOp op, KernelBuilder &kb) {
  int64_t size = memrefSize(op.getHidden(), 0);
  int64_t mode = op.getMode();
  Value eps = kb.f32(op.getEps().convertToFloat());
  Value h = kb.buffer(op.getHidden()), in = kb.buffer(op.getEntry()),
        st = kb.buffer(op.getState());
  // y = visit(loaded) stored into h, then h scaled to unit length.
  auto unitH = [&](SmallVector<Value> rows,
                   const std::function<Value(ArrayRef<Value>, const HeldElement &)> &form) {
    Value local = walkRow(kb, size, 1,
                          {loadRows(kb, rows), [&](ArrayRef<Value> values, const HeldElement &e) {
                             Value y = form(values, e);
                             kb.storeHeld(y, h, e);
                             return SmallVector<Value>{kb.fmul(y, y)};
                           }})[0];
    scaleRow(kb, h, size, kb.rsqrt(kb.fadd(kb.reduce(local, ReduceKind::Add), eps)));
  };
  if (mode == 0) {
    // Enter: in = st = h, then h = unit(h + h) as the seed writes it.
    unitH({h}, [&](ArrayRef<Value> v, const HeldElement &e) {
      kb.storeHeld(v[0], in, e);
      kb.storeHeld(v[0], st, e);
      return kb.fadd(v[0], v[0]);
    });
    return;
  }
  if (mode == 4) {
    unitH({st, in}, [&](ArrayRef<Value> v, const HeldElement &) { return kb.fadd(v[0], v[1]); });
    return;
  }
  Value inv = kb.rsqrt(kb.fadd(sumSquares(kb, {h}, size)[0], eps));
  if (mode == 2 || mode == 3) {
    walkRow(kb, size, 0, {loadRows(kb, {h}), [&](ArrayRef<Value> v, const HeldElement &e) {
              Value u = kb.fmul(v[0], inv);
              kb.storeHeld(u, h, e);
              if (mode == 3)
                kb.storeHeld(u, st, e);
              return SmallVector<Value>{};
            }});
    return;
  }
  unitH({h, in}, [&](ArrayRef<Value> v, const HeldElement &e) {
    Value u = kb.fmul(v[0], inv);
    kb.storeHeld(u, st, e);
    return kb.fadd(u, v[1]);
  });
}

} // namespace kiln
