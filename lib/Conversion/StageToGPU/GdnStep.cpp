//===- GdnStep.cpp - Gated delta rule and gated norm, a workgroup per head ===//
//
// State layout [nv, dk, dv]. The workgroup (reduce-workgroup-size threads) is
// C column lanes x P row slices: lane c owns value columns j = c, c + C, ...
// (neighbouring lanes touch neighbouring words of each state row) and slice
// s the state rows i = s, s + P, ... of each column. A column's
// kv_j = Σ_i S[i][j]·k̂_i and o_j = Σ_i S'[i][j]·q̂_i are summed over the
// slices in workgroup memory, so each thread's serial chain is dk/P rows, not
// dk (the decode step is latency-bound: 16 heads cannot fill a GPU). Up to
// 2·kMaxHeldPerThread such rows stay in registers between the two sums (one
// load each, all in flight together); more are walked twice by loops. q̂ and
// k̂ are normalised once into workgroup memory. One workgroup reduction gives
// |q|² and |k|², another the gated norm's mean square. With one column pass
// of held rows, every load the pass needs is issued before the q/k
// reduction, and o stays in registers for the gated norm.
//
//===----------------------------------------------------------------------===//
#include "GdnStep.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kiln {

GdnLayout gdnLayout(int64_t dk, int64_t dv, int64_t width) {
  int64_t lanes = std::min<int64_t>(llvm::PowerOf2Ceil(dv), width);
  int64_t slices = width / lanes;
  return {lanes, slices, ceilDiv(dk, slices)};
}

GdnHead gdnHead(stage::GdnStepOp op, KernelBuilder &kb, bool adjacentSlices, int64_t parts) {
  int64_t nv = memrefSize(op.getState(), 0), nk = op.getNumKHeads();
  GdnHead h;
  h.dk = memrefSize(op.getState(), 1);
  h.dv = memrefSize(op.getState(), 2);
  h.width = kb.getWorkgroupSize();
  h.parts = parts;
  h.columns = ceilDiv(h.dv, parts);
  h.layout = gdnLayout(h.dk, h.columns, h.width);
  h.head = kb.workgroupId();
  h.firstColumn = kb.index(0);
  if (parts > 1) {
    h.firstColumn = kb.mul(kb.rem(h.head, kb.index(parts)), kb.index(h.columns));
    h.head = kb.div(h.head, kb.index(parts));
  }
  h.tid = kb.threadId();
  Value keyHead = kb.div(h.head, kb.index(nv / nk));
  h.qBase = kb.mul(keyHead, kb.index(h.dk));
  h.kBase = kb.add(kb.index(nk * h.dk), h.qBase);
  h.vBase = kb.add(kb.index(2 * nk * h.dk), kb.mul(h.head, kb.index(h.dv)));
  h.oBase = kb.mul(h.head, kb.index(h.dv));
  h.adjacentSlices = adjacentSlices;
  if (adjacentSlices) {
    // Vulkan does not tie a thread's id to its subgroup lane: the layout
    // follows the subgroup's own numbering, which is a permutation of the
    // thread ids wherever subgroups are full (widths and subgroup sizes are
    // powers of two) and keeps a column's slices within one subgroup.
    Value rank = kb.add(kb.mul(kb.subgroupId(), kb.subgroupSize()), kb.laneId());
    h.lane = kb.div(rank, kb.index(h.layout.slices));
    h.slice = kb.rem(rank, kb.index(h.layout.slices));
  } else {
    h.lane = kb.rem(h.tid, kb.index(h.layout.lanes));
    h.slice = kb.div(h.tid, kb.index(h.layout.lanes));
  }
  return h;
}

GdnHeldRows loadHeldRows(const GdnHead &h, Value state, Value j, KernelBuilder &kb) {
  const int64_t slices = h.layout.slices, dk = h.dk;
  GdnHeldRows held;
  for (int64_t r = 0; r < h.layout.rowsPerThread; ++r) {
    Value i = kb.add(h.slice, kb.index(r * slices));
    Value ok = (r + 1) * slices > dk ? kb.ult(i, kb.index(dk)) : Value();
    Value at = ok ? kb.min(i, kb.index(dk - 1)) : i;
    Value cell = kb.load(state, {h.head, at, j});
    held.rows.push_back(at);
    held.inRange.push_back(ok);
    held.cells.push_back(ok ? kb.select(ok, cell, kb.f32(0.0f)) : cell);
  }
  return held;
}

GdnNormalised normaliseQK(const GdnHead &h, Value qkv, KernelBuilder &kb) {
  const int64_t dk = h.dk;
  SmallVector<Value> squares = kb.forLoop(
      h.tid, kb.index(dk), kb.index(h.width), {kb.f32(0.0f), kb.f32(0.0f)},
      [&](Value i, ValueRange acc) -> SmallVector<Value> {
        Value q = kb.load(qkv, {kb.add(h.qBase, i)}), k = kb.load(qkv, {kb.add(h.kBase, i)});
        return {kb.fadd(acc[0], kb.fmul(q, q)), kb.fadd(acc[1], kb.fmul(k, k))};
      });
  SmallVector<Value> norms = kb.reduceMany(squares);
  auto [invQ, invK] = inverseQKNorms(norms[0], norms[1], dk, kb);
  GdnNormalised n;
  n.qHat = kb.workgroupBuffer(dk);
  n.kHat = kb.workgroupBuffer(dk);
  kb.strided(kb.index(dk), [&](Value i) {
    kb.store(kb.fmul(kb.load(qkv, {kb.add(h.qBase, i)}), invQ), n.qHat, {i});
    kb.store(kb.fmul(kb.load(qkv, {kb.add(h.kBase, i)}), invK), n.kHat, {i});
  });
  n.partials = kb.workgroupBuffer(h.width);
  kb.barrier();
  return n;
}

std::pair<Value, Value> inverseQKNorms(Value qq, Value kk, int64_t dk, KernelBuilder &kb) {
  Value invQ = kb.fdiv(kb.f32(1.0f),
                       kb.fmul(kb.sqrt(kb.fadd(qq, kb.f32(1e-6f))),
                               kb.f32(std::sqrt(float(dk)))));
  Value invK = kb.rsqrt(kb.fadd(kk, kb.f32(1e-6f)));
  return {invQ, invK};
}

std::pair<Value, Value> decayAndBeta(Value aLog, Value a, Value bGate, KernelBuilder &kb) {
  Value decay = kb.exp(kb.fmul(kb.fsub(kb.f32(0.0f), kb.exp(aLog)),
                               kb.softplus(a)));
  return {decay, kb.sigmoid(bGate)};
}

namespace {

/// Σ over the slices through `partials`: each thread stores its partial, a
/// barrier, then every thread adds its column's slices (C lanes apart, or
/// adjacent).
Value sumThroughMemory(const GdnHead &h, Value partials, Value partial, KernelBuilder &kb) {
  const int64_t lanes = h.layout.lanes, slices = h.layout.slices;
  Value first = h.adjacentSlices ? kb.mul(h.lane, kb.index(slices)) : h.lane;
  auto at = [&](int64_t s) {
    return kb.add(first, kb.index(h.adjacentSlices ? s : s * lanes));
  };
  kb.store(partial, partials, {h.adjacentSlices ? kb.add(first, h.slice) : h.tid});
  kb.barrier();
  Value total = kb.load(partials, {h.adjacentSlices ? first : h.lane});
  for (int64_t s = 1; s < slices; ++s)
    total = kb.fadd(total, kb.load(partials, {at(s)}));
  return total;
}

/// sumSlicesOnce, and with `reusable` a barrier after a sum through memory.
/// Adjacent slices are summed by a butterfly of subgroup shuffles (log2 P)
/// where the subgroup is at least P wide, read at run time: a Vulkan device may
/// run 4 lanes, or vary them by pipeline. The condition is uniform, so the
/// memory fallback's barriers are too.
Value sumOverSlices(const GdnHead &h, Value partials, Value partial, KernelBuilder &kb,
                    bool reusable) {
  auto throughMemory = [&] {
    Value total = sumThroughMemory(h, partials, partial, kb);
    if (reusable)
      kb.barrier();
    return total;
  };
  const int64_t slices = h.layout.slices;
  if (!h.adjacentSlices || !llvm::isPowerOf2_64(slices))
    return throughMemory();
  if (slices == 1)
    return partial;
  Value narrow = kb.ult(kb.subgroupSize(), kb.index(slices));
  return kb.ifThenElseValues(
      narrow, [&]() -> SmallVector<Value> { return {throughMemory()}; },
      [&]() -> SmallVector<Value> {
        Value total = partial;
        for (int64_t mask = slices / 2; mask >= 1; mask /= 2)
          total = kb.fadd(total, kb.shuffleXor(total, static_cast<int32_t>(mask)));
        return {total};
      })[0];
}

} // namespace

Value sumSlicesOnce(const GdnHead &h, Value partials, Value partial, KernelBuilder &kb) {
  return sumOverSlices(h, partials, partial, kb, /*reusable=*/false);
}

Value sumSlices(const GdnHead &h, Value partials, Value partial, KernelBuilder &kb) {
  return sumOverSlices(h, partials, partial, kb, /*reusable=*/true);
}

Value gatedNormInverse(stage::GdnStepOp op, Value squares, int64_t dv, KernelBuilder &kb) {
  return kb.rsqrt(kb.fadd(kb.fdiv(squares, kb.f32(float(dv))),
                          kb.f32(op.getEps().convertToFloat())));
}

Value gatedOutput(stage::GdnStepOp op, Value value, Value at, Value inv, Value normWeight,
                  Value gate, KernelBuilder &kb) {
  Value y = kb.fmul(kb.fmul(value, inv), normWeight);
  y = kb.fmul(y, kb.silu(gate));
  if (op.getFold())
    y = kb.fmul(y, kb.load(kb.buffer(op.getFold()), {at}));
  return y;
}

KernelShape shapeOf(stage::GdnStepOp op, const StageToGPUOptions &o) {
  return {o.reduceWorkgroupSize, memrefSize(op.getState(), 0)};
}

void buildKernel(stage::GdnStepOp op, KernelBuilder &kb) {
  Value qkv = kb.buffer(op.getQkv()), state = kb.buffer(op.getState());
  Value out = kb.buffer(op.getOut());
  const bool shuffled = kb.options().gdnShuffleSums && kb.options().subgroupShuffle;
  const GdnHead h = gdnHead(op, kb, /*adjacentSlices=*/shuffled);
  const int64_t dk = h.dk, dv = h.dv, lanes = h.layout.lanes, slices = h.layout.slices;
  const int64_t rowsPerThread = h.layout.rowsPerThread;
  // A thread's rows of one column pass, held in registers when few enough.
  bool held = rowsPerThread <= 2 * kMaxHeldPerThread;
  Value head = h.head, vBase = h.vBase, oBase = h.oBase, lane = h.lane, slice = h.slice;
  int64_t passes = ceilDiv(dv, lanes);

  // With one column pass of held rows, everything the pass reads from memory
  // (the state rows, v, z, the gates, the norm weight) is loaded first, so
  // those loads are in flight while the workgroup normalises q and k (the
  // barriers below would otherwise hold them back: a round trip each).
  bool preload = held && passes == 1;
  Value aLog = kb.load(kb.buffer(op.getALog()), {head});
  Value a = kb.fadd(kb.load(kb.buffer(op.getA()), {head}),
                    kb.load(kb.buffer(op.getDtBias()), {head}));
  Value bGate = kb.load(kb.buffer(op.getB()), {head});
  Value norm = kb.buffer(op.getNorm()), z = kb.buffer(op.getZ());
  GdnHeldRows preloaded;
  Value heldV, heldZ, heldNorm;
  if (preload) {
    Value j = kb.min(lane, kb.index(dv - 1));
    heldV = kb.load(qkv, {kb.add(vBase, j)});
    heldZ = kb.load(z, {kb.add(oBase, j)});
    heldNorm = kb.load(norm, {j});
    preloaded = loadHeldRows(h, state, j, kb);
  }

  GdnNormalised normalised = normaliseQK(h, qkv, kb);
  Value qHat = normalised.qHat, kHat = normalised.kHat;

  auto [decay, beta] = decayAndBeta(aLog, a, bGate, kb);
  auto sumSlicesOf = [&](Value partial) {
    return sumSlices(h, normalised.partials, partial, kb);
  };
  // Column passes are uniform over the workgroup (their barriers need it);
  // a lane past dv computes on a clamped column and stores nothing. Returns
  // (o of the lane's column, acc + o² where this thread owns it).
  auto columnPass = [&](Value pass, Value acc) -> std::pair<Value, Value> {
    Value column = kb.add(kb.mul(pass, kb.index(lanes)), lane);
    Value valid = kb.ult(column, kb.index(dv));
    Value j = kb.min(column, kb.index(dv - 1));
    Value v = preload ? heldV : kb.load(qkv, {kb.add(vBase, j)});
    Value o;
    if (held) {
      // The thread's state rows stay in registers between the two sums, all
      // loaded at once (a loop waited for each: 18 us a layer on the H200).
      GdnHeldRows held = preload ? preloaded : loadHeldRows(h, state, j, kb);
      SmallVector<Value> &rows = held.rows, &inRange = held.inRange, &cells = held.cells;
      SmallVector<Value> keys, kvTerms;
      for (int64_t r = 0; r < rowsPerThread; ++r) {
        keys.push_back(kb.load(kHat, {rows[r]}));
        kvTerms.push_back(kb.fmul(cells[r], keys[r]));
      }
      Value kv = sumSlicesOf(kb.sum(kvTerms));
      Value delta = kb.fmul(beta, kb.fsub(v, kb.fmul(decay, kv)));
      SmallVector<Value> oTerms;
      for (int64_t r = 0; r < rowsPerThread; ++r) {
        Value updated = kb.fadd(kb.fmul(decay, cells[r]), kb.fmul(keys[r], delta));
        Value store = inRange[r] ? arith::AndIOp::create(kb.b, kb.loc, valid, inRange[r])
                                 : valid;
        kb.ifThen(store, [&] { kb.store(updated, state, {head, rows[r], j}); });
        Value term = kb.fmul(updated, kb.load(qHat, {rows[r]}));
        oTerms.push_back(inRange[r] ? kb.select(inRange[r], term, kb.f32(0.0f)) : term);
      }
      o = sumSlicesOf(kb.sum(oTerms));
    } else {
      Value kvPart = kb.forLoop(slice, kb.index(dk), kb.index(slices),
                                {kb.f32(0.0f)},
                                [&](Value i, ValueRange s) -> SmallVector<Value> {
        return {kb.fadd(s[0], kb.fmul(kb.load(state, {head, i, j}),
                                      kb.load(kHat, {i})))};
      })[0];
      Value kv = sumSlicesOf(kvPart);
      Value delta = kb.fmul(beta, kb.fsub(v, kb.fmul(decay, kv)));
      Value oPart = kb.forLoop(slice, kb.index(dk), kb.index(slices),
                               {kb.f32(0.0f)},
                               [&](Value i, ValueRange s) -> SmallVector<Value> {
        Value updated = kb.fadd(kb.fmul(decay, kb.load(state, {head, i, j})),
                                kb.fmul(kb.load(kHat, {i}), delta));
        kb.ifThen(valid, [&] { kb.store(updated, state, {head, i, j}); });
        return {kb.fadd(s[0], kb.fmul(updated, kb.load(qHat, {i})))};
      })[0];
      o = sumSlicesOf(oPart);
    }
    Value owner = arith::AndIOp::create(kb.b,
        kb.loc, valid, kb.ult(slice, kb.index(1)));
    if (!preload)
      kb.ifThen(owner, [&] { kb.store(o, out, {kb.add(oBase, j)}); });
    Value square = kb.select(owner, kb.fmul(o, o), kb.f32(0.0f));
    return {o, kb.fadd(acc, square)};
  };
  Value o, oSquares;
  if (passes == 1) {
    std::tie(o, oSquares) = columnPass(kb.index(0), kb.f32(0.0f));
  } else {
    oSquares = kb.forLoop(kb.index(0), kb.index(passes), kb.index(1), {kb.f32(0.0f)},
                          [&](Value pass, ValueRange acc) -> SmallVector<Value> {
                            return {columnPass(pass, acc[0]).second};
                          })[0];
  }
  Value total = kb.reduce(oSquares, ReduceKind::Add);
  Value inv = gatedNormInverse(op, total, dv, kb);
  auto gated = [&](Value value, Value at, Value normWeight, Value gate) {
    return gatedOutput(op, value, at, inv, normWeight, gate, kb);
  };
  if (preload) {
    // One pass: o is still in the owner's registers.
    Value owner = arith::AndIOp::create(kb.b, kb.loc, kb.ult(lane, kb.index(dv)),
                                        kb.ult(slice, kb.index(1)));
    kb.ifThen(owner, [&] {
      Value at = kb.add(oBase, lane);
      kb.store(gated(o, at, heldNorm, heldZ), out, {at});
    });
    return;
  }
  // Each lane normalises only the columns it stored (no barrier needed).
  kb.ifThen(kb.ult(slice, kb.index(1)), [&] {
    kb.forLoop(lane, kb.index(dv), kb.index(lanes), [&](Value j) {
      Value at = kb.add(oBase, j);
      kb.store(gated(kb.load(out, {at}), at, kb.load(norm, {j}), kb.load(z, {at})), out, {at});
    });
  });
}

} // namespace kiln
