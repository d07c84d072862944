//===- GdnStep.cpp - Gated delta rule and gated norm, a workgroup per head ===//
//
// State layout [nv, dk, dv]: a lane owns value columns j (stride = workgroup
// size), so neighbouring lanes touch neighbouring words of each state row.
// The lane computes kv_j = Σ_i S[i][j]·k̂_i, then updates its column in place
// and accumulates o_j = Σ_i S'[i][j]·q̂_i. Two workgroup reductions give |q|²
// and |k|², a third the gated norm's mean square.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::GdnStepOp op, const StageToGPUOptions &o) {
  return {o.headWorkgroupSize, memrefSize(op.getState(), 0)};
}

void buildKernel(stage::GdnStepOp op, KernelBuilder &kb) {
  int64_t nv = memrefSize(op.getState(), 0), dk = memrefSize(op.getState(), 1),
          dv = memrefSize(op.getState(), 2);
  int64_t nk = op.getNumKHeads();
  Value qkv = kb.buffer(op.getQkv()), state = kb.buffer(op.getState());
  Value out = kb.buffer(op.getOut());
  Value head = kb.workgroupId();
  Value keyHead = kb.div(head, kb.index(nv / nk));
  Value qBase = kb.mul(keyHead, kb.index(dk));
  Value kBase = kb.add(kb.index(nk * dk), qBase);
  Value vBase = kb.add(kb.index(2 * nk * dk), kb.mul(head, kb.index(dv)));
  Value oBase = kb.mul(head, kb.index(dv));

  auto squares = [&](Value base) {
    return kb.strided(kb.index(dk), kb.f32(0.0f), [&](Value i, Value acc) {
      Value v = kb.load(qkv, {kb.add(base, i)});
      return kb.fadd(acc, kb.fmul(v, v));
    });
  };
  Value qq = kb.reduce(squares(qBase), ReduceKind::Add);
  Value kk = kb.reduce(squares(kBase), ReduceKind::Add);
  Value invQ = kb.fdiv(kb.f32(1.0f),
                       kb.fmul(kb.sqrt(kb.fadd(qq, kb.f32(1e-6f))),
                               kb.f32(std::sqrt(float(dk)))));
  Value invK = kb.rsqrt(kb.fadd(kk, kb.f32(1e-6f)));

  Value aLog = kb.load(kb.buffer(op.getALog()), {head});
  Value a = kb.fadd(kb.load(kb.buffer(op.getA()), {head}),
                    kb.load(kb.buffer(op.getDtBias()), {head}));
  Value decay = kb.exp(kb.fmul(kb.fsub(kb.f32(0.0f), kb.exp(aLog)),
                               kb.softplus(a)));
  Value beta = kb.sigmoid(kb.load(kb.buffer(op.getB()), {head}));

  Value oSquares = kb.strided(kb.index(dv), kb.f32(0.0f), [&](Value j, Value acc) {
    Value kv = kb.forLoop(kb.index(0), kb.index(dk), kb.index(1),
                          {kb.f32(0.0f)},
                          [&](Value i, ValueRange s) -> SmallVector<Value> {
      Value k = kb.fmul(kb.load(qkv, {kb.add(kBase, i)}), invK);
      return {kb.fadd(s[0], kb.fmul(kb.load(state, {head, i, j}), k))};
    })[0];
    Value v = kb.load(qkv, {kb.add(vBase, j)});
    Value delta = kb.fmul(beta, kb.fsub(v, kb.fmul(decay, kv)));
    Value o = kb.forLoop(kb.index(0), kb.index(dk), kb.index(1),
                         {kb.f32(0.0f)},
                         [&](Value i, ValueRange s) -> SmallVector<Value> {
      Value k = kb.fmul(kb.load(qkv, {kb.add(kBase, i)}), invK);
      Value q = kb.fmul(kb.load(qkv, {kb.add(qBase, i)}), invQ);
      Value updated = kb.fadd(kb.fmul(decay, kb.load(state, {head, i, j})),
                              kb.fmul(k, delta));
      kb.store(updated, state, {head, i, j});
      return {kb.fadd(s[0], kb.fmul(updated, q))};
    })[0];
    kb.store(o, out, {kb.add(oBase, j)});
    return kb.fadd(acc, kb.fmul(o, o));
  });
  Value total = kb.reduce(oSquares, ReduceKind::Add);
  Value inv = kb.rsqrt(kb.fadd(kb.fdiv(total, kb.f32(float(dv))),
                               kb.f32(op.getEps().convertToFloat())));
  Value norm = kb.buffer(op.getNorm()), z = kb.buffer(op.getZ());
  kb.strided(kb.index(dv), [&](Value j) {
    Value at = kb.add(oBase, j);
    Value y = kb.fmul(kb.fmul(kb.load(out, {at}), inv), kb.load(norm, {j}));
    y = kb.fmul(y, kb.silu(kb.load(z, {at})));
    if (op.getFold())
      y = kb.fmul(y, kb.load(kb.buffer(op.getFold()), {at}));
    kb.store(y, out, {at});
  });
}

} // namespace kiln
