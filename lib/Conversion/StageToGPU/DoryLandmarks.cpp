//===- DoryLandmarks.cpp - Landmark capture and seal (M = (K + λI)⁻¹) -----===//
//
// capture: a thread per (KV head, dim) copies the group's first query head.
// seal: a workgroup per KV head forms K in workgroup memory and inverts
// K + λI by Gauss-Jordan with partial pivoting, the reference's algorithm
// step for step, in f32. Each step reads what the previous one wrote through
// a barrier; values a step both reads and overwrites (the pivot, the column
// of factors) are first copied to registers or a separate buffer.
//
//===----------------------------------------------------------------------===//
#include "DoryFarField.h"

using namespace mlir;

namespace kiln {

namespace {

Value metaIndex(KernelBuilder &kb, Value meta, Value word) {
  Value raw = kb.load(meta, {word});
  return arith::IndexCastUIOp::create(kb.b, kb.loc, kb.b.getIndexType(), raw);
}
Value eq(KernelBuilder &kb, Value a, Value c) {
  return arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq, a, c);
}
Value andI(KernelBuilder &kb, Value a, Value c) {
  return arith::AndIOp::create(kb.b, kb.loc, a, c);
}

} // namespace

//===----------------------------------------------------------------------===//
// landmark_capture
//===----------------------------------------------------------------------===//

KernelShape shapeOf(stage::LandmarkCaptureOp op, const StageToGPUOptions &o) {
  int64_t kvh = memrefSize(op.getLandmarks(), 0),
          hd = memrefSize(op.getLandmarks(), 2);
  return {o.rowWorkgroupSize, ceilDiv(kvh * hd, o.rowWorkgroupSize)};
}

void buildKernel(stage::LandmarkCaptureOp op, KernelBuilder &kb) {
  int64_t kvh = memrefSize(op.getLandmarks(), 0),
          m = memrefSize(op.getLandmarks(), 1),
          hd = memrefSize(op.getLandmarks(), 2);
  int64_t group = memrefSize(op.getQ(), 0) / hd / kvh;
  int64_t stride = static_cast<int64_t>(op.getStride());
  Value q = kb.buffer(op.getQ()), meta = kb.buffer(op.getFarMeta()),
        landmarks = kb.buffer(op.getLandmarks());
  Value t = kb.globalId();
  kb.ifThen(kb.ult(t, kb.index(kvh * hd)), [&] {
    Value kvHead = kb.div(t, kb.index(hd)), d = kb.rem(t, kb.index(hd));
    Value position = kb.paramIndex(kb.buffer(op.getParams()),
                                   static_cast<int64_t>(op.getPositionWord()));
    Value index = kb.div(position, kb.index(stride));
    Value unsealed =
        eq(kb, metaIndex(kb, meta, kb.mul(kvHead, kb.index(3))), kb.index(0));
    Value onStride = eq(kb, kb.rem(position, kb.index(stride)), kb.index(0));
    Value capture = andI(kb, andI(kb, unsealed, onStride),
                         kb.ult(index, kb.index(m)));
    kb.ifThen(capture, [&] {
      Value from = kb.add(kb.mul(kvHead, kb.index(group * hd)), d);
      kb.store(kb.load(q, {from}), landmarks, {kvHead, index, d});
    });
  });
}

//===----------------------------------------------------------------------===//
// landmark_seal
//===----------------------------------------------------------------------===//

KernelShape shapeOf(stage::LandmarkSealOp op, const StageToGPUOptions &o) {
  return {o.headWorkgroupSize, memrefSize(op.getLandmarks(), 0)};
}

void buildKernel(stage::LandmarkSealOp op, KernelBuilder &kb) {
  int64_t m = memrefSize(op.getLandmarks(), 1),
          hd = memrefSize(op.getLandmarks(), 2);
  int64_t stride = static_cast<int64_t>(op.getStride());
  Value scale = kb.f32(op.getScale().convertToFloat());
  Value landmarks = kb.buffer(op.getLandmarks()),
        inverse = kb.buffer(op.getInverse()), sums = kb.buffer(op.getFarSums()),
        meta = kb.buffer(op.getFarMeta());
  Value kvHead = kb.workgroupId();
  Value countWord = kb.mul(kvHead, kb.index(3));
  Value sealed = arith::CmpIOp::create(kb.b,
      kb.loc, arith::CmpIPredicate::ne, metaIndex(kb, meta, countWord),
      kb.index(0));
  Value last = kb.paramIndex(kb.buffer(op.getParams()),
                             static_cast<int64_t>(op.getPositionWord()));
  // One landmark per stride positions of the call, at most m, at least 1.
  Value wanted = kb.min(kb.add(kb.div(last, kb.index(stride)), kb.index(1)),
                        kb.index(m));
  Value n = kb.select(sealed, kb.index(0), wanted);
  Value a = kb.workgroupBuffer(m * m), inv = kb.workgroupBuffer(m * m),
        factors = kb.workgroupBuffer(m);
  auto at = [&](Value row, Value col) {
    return kb.add(kb.mul(row, kb.index(m)), col);
  };
  Value zero = kb.f32(0.0f), one = kb.f32(1.0f);

  // K_ab = exp(scale · l_a·l_b), and the identity beside it.
  kb.strided(kb.mul(n, n), [&](Value i) {
    Value r = kb.div(i, n), c = kb.rem(i, n);
    Value product = kb.forLoop(
        kb.index(0), kb.index(hd), kb.index(1), {zero},
        [&](Value d, ValueRange s) -> SmallVector<Value> {
          return {kb.fadd(s[0], kb.fmul(kb.load(landmarks, {kvHead, r, d}),
                                        kb.load(landmarks, {kvHead, c, d})))};
        })[0];
    kb.store(kb.exp(kb.fmul(scale, product)), a, {at(r, c)});
    kb.store(kb.select(eq(kb, r, c), one, zero), inv, {at(r, c)});
  });
  kb.barrier();
  // The ridge λ = 1e-6 · max_a K_aa (reference kNystromRidge).
  Value largest = carriedLoop(kb, kb.index(0), n, zero, [&](Value i, Value s) {
    return kb.fmax(s, kb.load(a, {at(i, i)}));
  });
  Value ridge = kb.fmul(largest, kb.f32(1e-6f));
  kb.barrier();
  kb.strided(n, [&](Value i) {
    kb.store(kb.fadd(kb.load(a, {at(i, i)}), ridge), a, {at(i, i)});
  });
  kb.barrier();

  kb.forLoop(kb.index(0), n, kb.index(1), [&](Value col) {
    // Partial pivoting: the first row of largest |a[r][col]|, r ≥ col.
    auto magnitude = [&](Value r) {
      return math::AbsFOp::create(kb.b, kb.loc, kb.load(a, {at(r, col)}));
    };
    // (The last column's search runs zero times: the guard keeps `col`.)
    Value first = kb.add(col, kb.index(1));
    SmallVector<Value> best = kb.forLoop(
        first, n, kb.index(1), {col, magnitude(col)},
        [&](Value r, ValueRange s) -> SmallVector<Value> {
          Value v = magnitude(r);
          Value better = arith::CmpFOp::create(kb.b,
              kb.loc, arith::CmpFPredicate::OGT, v, s[1]);
          return {kb.select(better, r, s[0]), kb.select(better, v, s[1])};
        });
    Value pivot = kb.select(kb.ult(first, n), best[0], col);
    kb.strided(n, [&](Value c) {
      for (Value matrix : {a, inv}) {
        Value x = kb.load(matrix, {at(pivot, c)});
        Value y = kb.load(matrix, {at(col, c)});
        kb.store(y, matrix, {at(pivot, c)});
        kb.store(x, matrix, {at(col, c)});
      }
    });
    kb.barrier();
    Value rowScale = kb.fdiv(one, kb.load(a, {at(col, col)}));
    kb.barrier();
    kb.strided(n, [&](Value c) {
      for (Value matrix : {a, inv})
        kb.store(kb.fmul(kb.load(matrix, {at(col, c)}), rowScale), matrix,
                 {at(col, c)});
    });
    kb.barrier();
    kb.strided(n, [&](Value r) {
      kb.store(kb.load(a, {at(r, col)}), factors, {r});
    });
    kb.barrier();
    kb.strided(kb.mul(n, n), [&](Value i) {
      Value r = kb.div(i, n), c = kb.rem(i, n);
      kb.ifThen(arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::ne, r,
                                           col),
                [&] {
                  Value factor = kb.load(factors, {r});
                  for (Value matrix : {a, inv}) {
                    Value y = kb.fsub(kb.load(matrix, {at(r, c)}),
                                      kb.fmul(factor, kb.load(matrix, {at(col, c)})));
                    kb.store(y, matrix, {at(r, c)});
                  }
                });
    });
    kb.barrier();
  });

  kb.strided(kb.mul(n, n), [&](Value i) {
    Value r = kb.div(i, n), c = kb.rem(i, n);
    kb.store(kb.load(inv, {at(r, c)}), inverse, {kvHead, r, c});
  });
  // A fresh far field: z, n and θ of every landmark start at zero (z is
  // read only once something is folded).
  int64_t row = hd + 2;
  kb.strided(kb.select(sealed, kb.index(0), kb.index(m * row)), [&](Value i) {
    kb.store(zero, sums,
             {kvHead, kb.div(i, kb.index(row)), kb.rem(i, kb.index(row))});
  });
  // Every lane read the count word at the top; store the count last.
  kb.barrier();
  kb.ifThen(andI(kb, eq(kb, kb.threadId(), kb.index(0)),
                 arith::XOrIOp::create(kb.b,
                     kb.loc, sealed,
                     arith::ConstantOp::create(kb.b, kb.loc,
                                                    kb.b.getBoolAttr(true)))),
            [&] {
              auto store = [&](Value v, Value word) {
                kb.store(arith::IndexCastUIOp::create(kb.b,
                             kb.loc, kb.b.getI32Type(), v),
                         meta, {word});
              };
              store(kb.index(0), kb.add(countWord, kb.index(2)));
              store(n, countWord);
            });
}

} // namespace kiln
