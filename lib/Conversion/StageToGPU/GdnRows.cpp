//===- GdnRows.cpp - A multi-row program's GDN step, state held across rows -===//
//
// In @prefill (Rows.h) a GDN step applies the call's rows in order. Walking the
// decode kernel once a row (Rows.h's "in order") loads and stores the head's
// state every row and pays its eight workgroup barriers a row. Here the
// workgroup of a head loads its state cells into registers once (GdnStep.h's
// layout: column lanes x row slices) and stores them once, and each row's
// serial part keeps only what the recurrence needs: the two column sums over
// the slices (kv before the update, o after it), one barrier each, through
// alternating workgroup buffers; the next row's q, k and v are loaded while
// this row is summed.
//
// Everything else leaves the serial part, a chunk of rows at a time (as many as
// workgroup memory holds the chunk's raw outputs for):
//   - before it, each row's |q|², |k|², decay and β (a thread a row), so q and
//     k are read raw and their norms scale the sums: kv = invK·Σ S·k and
//     o = invQ·Σ S'·q, the update adding k·(invK·δ);
//   - after it, the gated norm: each row's mean square of o (a thread a row),
//     then every (row, column) output in parallel.
// It needs the workgroup to hold a head's state: at most 2·kMaxHeldPerThread
// state rows a thread, in one pass over the value columns (gdnRowsWidth).
//
//===----------------------------------------------------------------------===//
#include "GdnStep.h"
#include "Rows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace kiln {

namespace {

constexpr int64_t kMaxChunkBytes = 32768;

bool holds(const GdnLayout &l, int64_t dv) {
  return l.rowsPerThread <= 2 * kMaxHeldPerThread && l.lanes >= dv;
}

/// Rows of a chunk at workgroup width `width`: as many as workgroup memory
/// holds beside the two sum buffers (each row: dv raw outputs and five
/// scalars), at most `maxRows` (and the chunk option); 0 where not one fits.
int64_t chunkRows(int64_t dv, int64_t width, int64_t maxRows, const StageToGPUOptions &o) {
  // Vulkan guarantees 16 KiB of workgroup memory; a target names its own, of
  // which a chunk takes at most 32 KiB, so that a plan for a roomier target
  // still runs where its other kernels do (lavapipe and most GPUs offer 32
  // KiB). A chunk's parallel phases cost a few us each, so a smaller chunk
  // costs little (embryo-1b at 512 threads: 53 rows a chunk instead of 84).
  const int64_t budget = o.maxWorkgroupMemoryBytes > 0
                             ? std::min<int64_t>(o.maxWorkgroupMemoryBytes, kMaxChunkBytes)
                             : 16384;
  const int64_t free = budget / 4 - 2 * width;
  int64_t rows = free <= 0 ? 0 : std::min(maxRows, free / (dv + 5));
  return o.prefillGdnChunkRows > 0 ? std::min(rows, o.prefillGdnChunkRows) : rows;
}

} // namespace

int64_t gdnRowsParts(stage::GdnStepOp op, const StageToGPUOptions &o) {
  int64_t dv = memrefSize(op.getState(), 2);
  if (!o.prefillGdnHeld || o.prefillGdnColumns <= 0 || o.prefillGdnColumns >= dv ||
      !op.getCounters())
    return 1;
  return ceilDiv(dv, o.prefillGdnColumns);
}

namespace {
/// A split head's chunk rows at `width`: workgroup memory holds the two sum
/// buffers, four scalars a chunk row and, for the last workgroup's gated
/// norm, one a call row.
int64_t splitChunkRows(int64_t width, int64_t maxRows, const StageToGPUOptions &o) {
  const int64_t budget = o.maxWorkgroupMemoryBytes > 0
                             ? std::min<int64_t>(o.maxWorkgroupMemoryBytes, kMaxChunkBytes)
                             : 16384;
  const int64_t free = budget / 4 - 2 * width - maxRows;
  int64_t rows = free <= 0 ? 0 : std::min(maxRows, free / 4);
  return o.prefillGdnChunkRows > 0 ? std::min(rows, o.prefillGdnChunkRows) : rows;
}
} // namespace

int64_t gdnRowsWidth(stage::GdnStepOp op, int64_t maxRows, const StageToGPUOptions &o) {
  if (!o.prefillGdnHeld)
    return 0;
  int64_t dk = memrefSize(op.getState(), 1), dv = memrefSize(op.getState(), 2);
  if (int64_t parts = gdnRowsParts(op, o); parts > 1) {
    // A part's columns, at most kMaxHeldPerThread state rows a thread (the
    // per-row work of a part is small: more slices shorten its chain).
    const int64_t columns = ceilDiv(dv, parts);
    for (int64_t width = std::max<int64_t>(32, llvm::PowerOf2Ceil(columns));
         width <= o.maxWorkgroupSize; width *= 2) {
      GdnLayout l = gdnLayout(dk, columns, width);
      if (l.lanes >= columns && l.rowsPerThread <= kMaxHeldPerThread &&
          splitChunkRows(width, maxRows, o) > 0)
        return width;
    }
    return 0;
  }
  // The narrowest power of two from the reduction width up that holds the state.
  for (int64_t width = o.reduceWorkgroupSize; width <= o.maxWorkgroupSize; width *= 2)
    if (holds(gdnLayout(dk, dv, width), dv) && chunkRows(dv, width, maxRows, o) > 0)
      return width;
  return 0;
}

void buildGdnRows(stage::GdnStepOp op, Value count, int64_t maxRows, KernelBuilder &kb) {
  Value qkv = kb.buffer(op.getQkv()), state = kb.buffer(op.getState());
  Value out = kb.buffer(op.getOut()), z = kb.buffer(op.getZ());
  Value norm = kb.buffer(op.getNorm());
  const StageToGPUOptions &o = kb.options();
  const bool shuffled = o.prefillGdnShuffleSums && o.subgroupShuffle;
  const int64_t parts = gdnRowsParts(op, o);
  const bool split = parts > 1;
  const GdnHead h = gdnHead(op, kb, /*adjacentSlices=*/shuffled, parts);
  const int64_t dk = h.dk, dv = h.dv, width = h.width;
  const int64_t chunk = split ? splitChunkRows(width, maxRows, o) : chunkRows(dv, width, maxRows, o);
  Value head = h.head;
  // The thread's value column j (of its part's, where the head is split).
  Value column = kb.add(h.firstColumn, h.lane);
  Value valid = split ? arith::AndIOp::create(kb.b, kb.loc, kb.ult(h.lane, kb.index(h.columns)),
                                              kb.ult(column, kb.index(dv)))
                            .getResult()
                      : kb.ult(h.lane, kb.index(dv));
  Value j = kb.min(column, kb.index(dv - 1));
  Value aLog = kb.load(kb.buffer(op.getALog()), {head});
  Value dtBias = kb.load(kb.buffer(op.getDtBias()), {head});
  // The column sums alternate between two buffers: a row's second sum is
  // written while no thread can still read its first (one barrier a sum:
  // sumSlicesOnce).
  Value kvSums = kb.workgroupBuffer(width), oSums = kb.workgroupBuffer(width);
  Value invQ = kb.workgroupBuffer(chunk), invK = kb.workgroupBuffer(chunk);
  Value decays = kb.workgroupBuffer(chunk), betas = kb.workgroupBuffer(chunk);
  // A split head's raw outputs go to `out`, the gated norm to the last of its
  // workgroups (below); a whole head's stay in workgroup memory a chunk.
  Value invO = kb.workgroupBuffer(split ? maxRows : chunk);
  Value rawO = split ? Value() : kb.workgroupBuffer(chunk * dv);
  // The thread's state cells of column j, loaded once for the call.
  GdnHeldRows cells = loadHeldRows(h, state, j, kb);
  SmallVector<Value> held = kb.forLoop(
      kb.index(0), count, kb.index(chunk), cells.cells,
      [&](Value first, ValueRange chunkCells) -> SmallVector<Value> {
        Value rows = kb.min(kb.sub(count, first), kb.index(chunk));
        // Each row's norms and gates, a thread a row.
        kb.forLoop(h.tid, rows, kb.index(width), [&](Value r) {
          kb.setRow(kb.add(first, r));
          SmallVector<Value> squares = kb.forLoop(
              kb.index(0), kb.index(dk), kb.index(1), {kb.f32(0.0f), kb.f32(0.0f)},
              [&](Value i, ValueRange acc) -> SmallVector<Value> {
                Value q = kb.load(qkv, {kb.add(h.qBase, i)});
                Value k = kb.load(qkv, {kb.add(h.kBase, i)});
                Value qq = kb.fadd(acc[0], kb.fmul(q, q));
                return {qq, kb.fadd(acc[1], kb.fmul(k, k))};
              });
          auto [rowInvQ, rowInvK] = inverseQKNorms(squares[0], squares[1], dk, kb);
          kb.store(rowInvQ, invQ, {r});
          kb.store(rowInvK, invK, {r});
          Value a = kb.fadd(kb.load(kb.buffer(op.getA()), {head}), dtBias);
          Value bGate = kb.load(kb.buffer(op.getB()), {head});
          auto [decay, beta] = decayAndBeta(aLog, a, bGate, kb);
          kb.store(decay, decays, {r});
          kb.store(beta, betas, {r});
          kb.setRow(Value());
        });
        kb.barrier();
        // The serial part: the rows in order, the state in registers. A row's
        // q, k and v are loaded a row ahead (carried beside the cells), so
        // their round trip overlaps the previous row's sums.
        const int64_t held = static_cast<int64_t>(chunkCells.size());
        auto loadRow = [&](Value r) {
          kb.setRow(kb.add(first, r));
          SmallVector<Value> raw = {kb.load(qkv, {kb.add(h.vBase, j)})};
          for (int64_t index = 0; index < held; ++index)
            raw.push_back(kb.load(qkv, {kb.add(h.kBase, cells.rows[index])}));
          for (int64_t index = 0; index < held; ++index)
            raw.push_back(kb.load(qkv, {kb.add(h.qBase, cells.rows[index])}));
          kb.setRow(Value());
          return raw;
        };
        SmallVector<Value> init(chunkCells.begin(), chunkCells.end());
        llvm::append_range(init, loadRow(kb.index(0)));
        SmallVector<Value> serial = kb.forLoop(
            kb.index(0), rows, kb.index(1), init,
            [&](Value r, ValueRange carried) -> SmallVector<Value> {
              ValueRange state = carried.take_front(held);
              Value v = carried[held];
              ValueRange keys = carried.slice(held + 1, held);
              ValueRange queries = carried.slice(2 * held + 1, held);
              Value following = kb.min(kb.add(r, kb.index(1)), kb.sub(rows, kb.index(1)));
              SmallVector<Value> ahead = loadRow(following);
              SmallVector<Value> kvTerms;
              for (int64_t index = 0; index < held; ++index)
                kvTerms.push_back(kb.fmul(state[index], keys[index]));
              Value rowInvK = kb.load(invK, {r});
              Value decay = kb.load(decays, {r});
              Value kv = kb.fmul(sumSlicesOnce(h, kvSums, kb.sum(kvTerms), kb), rowInvK);
              Value delta = kb.fmul(kb.load(betas, {r}), kb.fsub(v, kb.fmul(decay, kv)));
              Value scaledDelta = kb.fmul(rowInvK, delta);
              SmallVector<Value> updated, oTerms;
              for (int64_t index = 0; index < held; ++index) {
                Value cellNext =
                    kb.fadd(kb.fmul(decay, state[index]), kb.fmul(keys[index], scaledDelta));
                // A clamped row past the state stays 0, as loaded.
                if (cells.inRange[index])
                  cellNext = kb.select(cells.inRange[index], cellNext, kb.f32(0.0f));
                updated.push_back(cellNext);
                oTerms.push_back(kb.fmul(cellNext, queries[index]));
              }
              Value o = kb.fmul(sumSlicesOnce(h, oSums, kb.sum(oTerms), kb), kb.load(invQ, {r}));
              Value owner = arith::AndIOp::create(kb.b, kb.loc, valid,
                                                  kb.ult(h.slice, kb.index(1)));
              kb.ifThen(owner, [&] {
                if (!split) {
                  kb.store(o, rawO, {kb.add(kb.mul(r, kb.index(dv)), h.lane)});
                  return;
                }
                kb.setRow(kb.add(first, r));
                kb.store(o, out, {kb.add(h.oBase, j)});
                kb.setRow(Value());
              });
              llvm::append_range(updated, ahead);
              return updated;
            });
        SmallVector<Value> next(serial.begin(), serial.begin() + held);
        kb.barrier();
        if (split)
          return next;
        // The gated norm: each row's mean square (a thread a row), then every
        // output of the chunk.
        kb.forLoop(h.tid, rows, kb.index(width), [&](Value r) {
          Value base = kb.mul(r, kb.index(dv));
          Value total = kb.forLoop(kb.index(0), kb.index(dv), kb.index(1), {kb.f32(0.0f)},
                                   [&](Value c, ValueRange acc) -> SmallVector<Value> {
                                     Value o = kb.load(rawO, {kb.add(base, c)});
                                     return {kb.fadd(acc[0], kb.fmul(o, o))};
                                   })[0];
          kb.store(gatedNormInverse(op, total, dv, kb), invO, {r});
        });
        kb.barrier();
        kb.strided(kb.mul(rows, kb.index(dv)), [&](Value e) {
          Value r = kb.div(e, kb.index(dv));
          Value column = kb.rem(e, kb.index(dv));
          kb.setRow(kb.add(first, r));
          Value at = kb.add(h.oBase, column);
          Value gate = kb.load(z, {at});
          Value y = gatedOutput(op, kb.load(rawO, {e}), at, kb.load(invO, {r}),
                                kb.load(norm, {column}), gate, kb);
          kb.store(y, out, {at});
          kb.setRow(Value());
        });
        return next;
      });
  for (auto [r, value] : llvm::enumerate(held)) {
    Value store = cells.inRange[r]
                      ? arith::AndIOp::create(kb.b, kb.loc, valid, cells.inRange[r]).getResult()
                      : valid;
    kb.ifThen(store, [&] { kb.store(value, state, {head, cells.rows[r], j}); });
  }
  if (!split)
    return;
  // The head's last workgroup: the gated norm of every call row's outputs,
  // the other parts' written to `out` before they counted.
  Value counters = kb.buffer(op.getCounters());
  runInLastWorkgroup(kb, counters, head, kb.i32(static_cast<int32_t>(parts)), [&] {
    kb.forLoop(h.tid, count, kb.index(width), [&](Value r) {
      kb.setRow(r);
      // Sixteen loads in flight a trip.
      constexpr int64_t kUnroll = 16;
      Value total = kb.f32(0.0f);
      for (int64_t c0 = 0; c0 < dv; c0 += kUnroll) {
        SmallVector<Value> squares;
        for (int64_t c = c0; c < std::min(dv, c0 + kUnroll); ++c) {
          Value o = kb.load(out, {kb.add(h.oBase, kb.index(c))});
          squares.push_back(kb.fmul(o, o));
        }
        total = kb.fadd(total, kb.sum(squares));
      }
      kb.store(gatedNormInverse(op, total, dv, kb), invO, {r});
      kb.setRow(Value());
    });
    kb.barrier();
    kb.strided(kb.mul(count, kb.index(dv)), [&](Value e) {
      Value r = kb.div(e, kb.index(dv));
      Value c = kb.rem(e, kb.index(dv));
      kb.setRow(r);
      Value at = kb.add(h.oBase, c);
      Value y = gatedOutput(op, kb.load(out, {at}), at, kb.load(invO, {r}),
                            kb.load(norm, {c}), kb.load(z, {at}), kb);
      kb.store(y, out, {at});
      kb.setRow(Value());
    });
  });
}

} // namespace kiln
