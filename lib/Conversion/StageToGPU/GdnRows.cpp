//===- GdnRows.cpp - A multi-row program's GDN step, state held across rows -===//
//
// In @prefill (Rows.h) a GDN step applies the call's rows in order. Walking the
// decode kernel once a row (Rows.h's "in order") loads and stores the head's
// state every row. Here the workgroup of a head loads its state cells into
// registers once, applies every row of the call to them (the decode kernel's
// pieces, GdnStep.h), and stores them once. It needs the workgroup to hold a
// head's state: at most 2·kMaxHeldPerThread state rows a thread, in one pass
// over the value columns (gdnRowsWidth).
//
//===----------------------------------------------------------------------===//
#include "GdnStep.h"
#include "Rows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace kiln {

int64_t gdnRowsWidth(stage::GdnStepOp op, const StageToGPUOptions &o) {
  if (!o.prefillGdnHeld)
    return 0;
  int64_t dk = memrefSize(op.getState(), 1), dv = memrefSize(op.getState(), 2);
  // The narrowest power of two from the reduction width up that holds the state.
  for (int64_t width = o.reduceWorkgroupSize; width <= o.maxWorkgroupSize; width *= 2) {
    GdnLayout layout = gdnLayout(dk, dv, width);
    if (layout.rowsPerThread <= 2 * kMaxHeldPerThread && layout.lanes >= dv)
      return width;
  }
  return 0;
}

void buildGdnRows(stage::GdnStepOp op, Value count, KernelBuilder &kb) {
  Value qkv = kb.buffer(op.getQkv()), state = kb.buffer(op.getState());
  Value out = kb.buffer(op.getOut()), z = kb.buffer(op.getZ());
  const GdnHead h = gdnHead(op, kb);
  const int64_t dv = h.dv;
  Value head = h.head;
  Value valid = kb.ult(h.lane, kb.index(dv));
  Value j = kb.min(h.lane, kb.index(dv - 1));
  Value aLog = kb.load(kb.buffer(op.getALog()), {head});
  Value dtBias = kb.load(kb.buffer(op.getDtBias()), {head});
  Value normWeight = kb.load(kb.buffer(op.getNorm()), {j});
  // The thread's state cells of column j, loaded once for the call.
  GdnHeldRows cells = loadHeldRows(h, state, j, kb);
  SmallVector<Value> held = kb.forLoop(
      kb.index(0), count, kb.index(1), cells.cells,
      [&](Value row, ValueRange carried) -> SmallVector<Value> {
        // The row's activations (per-row buffers index it).
        kb.setRow(row);
        Value a = kb.fadd(kb.load(kb.buffer(op.getA()), {head}), dtBias);
        Value bGate = kb.load(kb.buffer(op.getB()), {head});
        Value v = kb.load(qkv, {kb.add(h.vBase, j)});
        Value gate = kb.load(z, {kb.add(h.oBase, j)});
        GdnNormalised n = normaliseQK(h, qkv, kb);
        Value decay = kb.exp(kb.fmul(kb.fsub(kb.f32(0.0f), kb.exp(aLog)), kb.softplus(a)));
        Value beta = kb.sigmoid(bGate);
        SmallVector<Value> keys, kvTerms;
        for (auto [r, cell] : llvm::enumerate(carried)) {
          keys.push_back(kb.load(n.kHat, {cells.rows[r]}));
          kvTerms.push_back(kb.fmul(cell, keys[r]));
        }
        Value kv = sumSlices(h, n.partials, kb.sum(kvTerms), kb);
        Value delta = kb.fmul(beta, kb.fsub(v, kb.fmul(decay, kv)));
        SmallVector<Value> updated, oTerms;
        for (auto [r, cell] : llvm::enumerate(carried)) {
          Value next = kb.fadd(kb.fmul(decay, cell), kb.fmul(keys[r], delta));
          // A clamped row past the state stays 0, as loaded.
          if (cells.inRange[r])
            next = kb.select(cells.inRange[r], next, kb.f32(0.0f));
          updated.push_back(next);
          oTerms.push_back(kb.fmul(next, kb.load(n.qHat, {cells.rows[r]})));
        }
        Value o = sumSlices(h, n.partials, kb.sum(oTerms), kb);
        Value owner = arith::AndIOp::create(kb.b, kb.loc, valid, kb.ult(h.slice, kb.index(1)));
        Value total = kb.reduce(kb.select(owner, kb.fmul(o, o), kb.f32(0.0f)), ReduceKind::Add);
        Value inv = kb.rsqrt(kb.fadd(kb.fdiv(total, kb.f32(float(dv))),
                                     kb.f32(op.getEps().convertToFloat())));
        kb.ifThen(owner, [&] {
          Value at = kb.add(h.oBase, h.lane);
          kb.store(gatedOutput(op, o, at, inv, normWeight, gate, kb), out, {at});
        });
        // The next row writes the normalised q and k this one read.
        kb.barrier();
        kb.setRow(Value());
        return updated;
      });
  for (auto [r, value] : llvm::enumerate(held)) {
    Value store = cells.inRange[r]
                      ? arith::AndIOp::create(kb.b, kb.loc, valid, cells.inRange[r]).getResult()
                      : valid;
    kb.ifThen(store, [&] { kb.store(value, state, {head, cells.rows[r], j}); });
  }
}

} // namespace kiln
