//===- GdnRows.cpp - A multi-row program's GDN step, state held across rows -===//
//
// In @prefill (Rows.h) a GDN step applies the call's rows in order. Walking the
// decode kernel once a row (Rows.h's "in order") loads and stores the head's
// state every row. Here the workgroup of a head loads its state cells into
// registers once, applies every row of the call to them (the decode kernel's
// arithmetic and reductions, GdnStep.cpp), and stores them once. It needs the
// workgroup to hold a head's state: at most 2·kMaxHeldPerThread state rows a
// thread, in one pass over the value columns (gdnRowsWidth).
//
//===----------------------------------------------------------------------===//
#include "Rows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kiln {

namespace {
/// Column lanes and row slices of a workgroup of `width` threads.
struct GdnLayout {
  int64_t lanes, slices, rowsPerThread;
};
GdnLayout layoutOf(int64_t dk, int64_t dv, int64_t width) {
  int64_t lanes = std::min<int64_t>(llvm::PowerOf2Ceil(dv), width);
  int64_t slices = width / lanes;
  return {lanes, slices, ceilDiv(dk, slices)};
}
bool holds(const GdnLayout &l, int64_t dv) {
  return l.rowsPerThread <= 2 * kMaxHeldPerThread && l.lanes >= dv;
}
} // namespace

int64_t gdnRowsWidth(stage::GdnStepOp op, const StageToGPUOptions &o) {
  if (!o.prefillGdnHeld)
    return 0;
  int64_t dk = memrefSize(op.getState(), 1), dv = memrefSize(op.getState(), 2);
  // The narrowest power of two from the reduction width up that holds the state.
  for (int64_t width = o.reduceWorkgroupSize; width <= o.maxWorkgroupSize; width *= 2)
    if (holds(layoutOf(dk, dv, width), dv))
      return width;
  return 0;
}

void buildGdnRows(stage::GdnStepOp op, Value count, KernelBuilder &kb) {
  const int64_t nv = memrefSize(op.getState(), 0), dk = memrefSize(op.getState(), 1),
                dv = memrefSize(op.getState(), 2);
  const int64_t nk = op.getNumKHeads();
  const int64_t width = kb.getWorkgroupSize();
  const GdnLayout layout = layoutOf(dk, dv, width);
  const int64_t lanes = layout.lanes, slices = layout.slices;
  Value qkv = kb.buffer(op.getQkv()), state = kb.buffer(op.getState());
  Value out = kb.buffer(op.getOut()), z = kb.buffer(op.getZ());
  Value head = kb.workgroupId();
  Value tid = kb.threadId();
  Value keyHead = kb.div(head, kb.index(nv / nk));
  Value qBase = kb.mul(keyHead, kb.index(dk));
  Value kBase = kb.add(kb.index(nk * dk), qBase);
  Value vBase = kb.add(kb.index(2 * nk * dk), kb.mul(head, kb.index(dv)));
  Value oBase = kb.mul(head, kb.index(dv));
  Value lane = kb.rem(tid, kb.index(lanes));
  Value slice = kb.div(tid, kb.index(lanes));
  Value valid = kb.ult(lane, kb.index(dv));
  Value j = kb.min(lane, kb.index(dv - 1));
  Value aLog = kb.load(kb.buffer(op.getALog()), {head});
  Value dtBias = kb.load(kb.buffer(op.getDtBias()), {head});
  Value normWeight = kb.load(kb.buffer(op.getNorm()), {j});
  // The thread's state cells of column j, loaded once for the call.
  SmallVector<Value> rows, inRange, cells;
  for (int64_t r = 0; r < layout.rowsPerThread; ++r) {
    Value i = kb.add(slice, kb.index(r * slices));
    Value ok = (r + 1) * slices > dk ? kb.ult(i, kb.index(dk)) : Value();
    Value at = ok ? kb.min(i, kb.index(dk - 1)) : i;
    Value cell = kb.load(state, {head, at, j});
    rows.push_back(at);
    inRange.push_back(ok);
    cells.push_back(ok ? kb.select(ok, cell, kb.f32(0.0f)) : cell);
  }
  Value qHat = kb.workgroupBuffer(dk), kHat = kb.workgroupBuffer(dk);
  Value partials = kb.workgroupBuffer(width);
  // Σ over the slices of column lane `lane`'s partials; every thread gets it.
  auto sumSlices = [&](Value partial) {
    kb.store(partial, partials, {tid});
    kb.barrier();
    Value total = kb.load(partials, {lane});
    for (int64_t s = 1; s < slices; ++s)
      total = kb.fadd(total, kb.load(partials, {kb.add(lane, kb.index(s * lanes))}));
    kb.barrier();
    return total;
  };
  SmallVector<Value> held = kb.forLoop(
      kb.index(0), count, kb.index(1), cells,
      [&](Value row, ValueRange carried) -> SmallVector<Value> {
        // The row's activations (per-row buffers index it).
        kb.setRow(row);
        Value a = kb.fadd(kb.load(kb.buffer(op.getA()), {head}), dtBias);
        Value bGate = kb.load(kb.buffer(op.getB()), {head});
        Value v = kb.load(qkv, {kb.add(vBase, j)});
        Value gate = kb.load(z, {kb.add(oBase, j)});
        SmallVector<Value> squares = kb.forLoop(
            tid, kb.index(dk), kb.index(width), {kb.f32(0.0f), kb.f32(0.0f)},
            [&](Value i, ValueRange acc) -> SmallVector<Value> {
              Value q = kb.load(qkv, {kb.add(qBase, i)}), k = kb.load(qkv, {kb.add(kBase, i)});
              return {kb.fadd(acc[0], kb.fmul(q, q)), kb.fadd(acc[1], kb.fmul(k, k))};
            });
        SmallVector<Value> norms = kb.reduceMany(squares);
        Value invQ = kb.fdiv(kb.f32(1.0f), kb.fmul(kb.sqrt(kb.fadd(norms[0], kb.f32(1e-6f))),
                                                   kb.f32(std::sqrt(float(dk)))));
        Value invK = kb.rsqrt(kb.fadd(norms[1], kb.f32(1e-6f)));
        kb.strided(kb.index(dk), [&](Value i) {
          kb.store(kb.fmul(kb.load(qkv, {kb.add(qBase, i)}), invQ), qHat, {i});
          kb.store(kb.fmul(kb.load(qkv, {kb.add(kBase, i)}), invK), kHat, {i});
        });
        kb.barrier();
        Value decay = kb.exp(kb.fmul(kb.fsub(kb.f32(0.0f), kb.exp(aLog)), kb.softplus(a)));
        Value beta = kb.sigmoid(bGate);
        SmallVector<Value> keys, kvTerms;
        for (auto [r, cell] : llvm::enumerate(carried)) {
          keys.push_back(kb.load(kHat, {rows[r]}));
          kvTerms.push_back(kb.fmul(cell, keys[r]));
        }
        Value kv = sumSlices(kb.sum(kvTerms));
        Value delta = kb.fmul(beta, kb.fsub(v, kb.fmul(decay, kv)));
        SmallVector<Value> updated, oTerms;
        for (auto [r, cell] : llvm::enumerate(carried)) {
          Value next = kb.fadd(kb.fmul(decay, cell), kb.fmul(keys[r], delta));
          // A clamped row past the state stays 0, as loaded.
          if (inRange[r])
            next = kb.select(inRange[r], next, kb.f32(0.0f));
          updated.push_back(next);
          oTerms.push_back(kb.fmul(next, kb.load(qHat, {rows[r]})));
        }
        Value o = sumSlices(kb.sum(oTerms));
        Value owner = arith::AndIOp::create(kb.b, kb.loc, valid, kb.ult(slice, kb.index(1)));
        Value total = kb.reduce(kb.select(owner, kb.fmul(o, o), kb.f32(0.0f)), ReduceKind::Add);
        Value inv = kb.rsqrt(kb.fadd(kb.fdiv(total, kb.f32(float(dv))),
                                     kb.f32(op.getEps().convertToFloat())));
        kb.ifThen(owner, [&] {
          Value at = kb.add(oBase, lane);
          Value y = kb.fmul(kb.fmul(kb.fmul(o, inv), normWeight), kb.silu(gate));
          if (op.getFold())
            y = kb.fmul(y, kb.load(kb.buffer(op.getFold()), {at}));
          kb.store(y, out, {at});
        });
        // The next row writes the normalised q and k this one read.
        kb.barrier();
        kb.setRow(Value());
        return updated;
      });
  for (int64_t r = 0; r < layout.rowsPerThread; ++r) {
    Value store = inRange[r] ? arith::AndIOp::create(kb.b, kb.loc, valid, inRange[r]) : valid;
    kb.ifThen(store, [&] { kb.store(held[r], state, {head, rows[r], j}); });
  }
}

} // namespace kiln
