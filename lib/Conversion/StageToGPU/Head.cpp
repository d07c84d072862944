//===- Head.cpp - The hierarchical head: cluster log-probs, then rows -----===//
//
// cluster_logits: one workgroup, a team of lanes per cluster row (coalesced),
// max and sum reductions for the log-softmax. head_rows: a workgroup per cluster; a
// cluster whose log-probability is below the gate (params word 2) writes
// −1e30 for its tokens and reads no row. The gate is uniform per workgroup,
// so the reductions inside the open branch are reached by every lane.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::ClusterLogitsOp, const StageToGPUOptions &o) {
  return {o.reduceWorkgroupSize, 1};
}

/// out = v - logsumexp(v) over `count` values already stored in `out[base..]`,
/// where `localMax` is this lane's max over the values it stored.
static void logSoftmaxInPlace(KernelBuilder &kb, Value out, Value base,
                              int64_t count, Value localMax, Value shift) {
  Value maxValue = kb.reduce(localMax, ReduceKind::Max);
  Value localSum = kb.strided(kb.index(count), kb.f32(0.0f), [&](Value i, Value s) {
    return kb.fadd(s, kb.exp(kb.fsub(kb.load(out, {kb.add(base, i)}), maxValue)));
  });
  Value sum = kb.reduce(localSum, ReduceKind::Add);
  Value offset = kb.fsub(shift, kb.fadd(maxValue, kb.log(sum)));
  kb.strided(kb.index(count), [&](Value i) {
    Value at = kb.add(base, i);
    kb.store(kb.fadd(kb.load(out, {at}), offset), out, {at});
  });
}

void buildKernel(stage::ClusterLogitsOp op, KernelBuilder &kb) {
  int64_t clusters = memrefSize(op.getClusters(), 0);
  int64_t hidden = memrefSize(op.getInput(), 0);
  Value x = kb.buffer(op.getInput()), weights = kb.buffer(op.getClusters());
  Value out = kb.buffer(op.getOut());
  // Teams of `lanes` threads share a cluster's row so that neighbouring lanes
  // read neighbouring words (a lane per row would read `lanes` rows apart).
  // Each pass covers `teams` clusters; a team's partials meet in workgroup
  // memory, and the thread that owns cluster c in strided() order sums them,
  // so the log-softmax below reads only what its own thread wrote.
  int64_t size = kb.getWorkgroupSize();
  int64_t lanes = std::min<int64_t>(32, size);
  int64_t teams = size / lanes;
  int64_t passes = ceilDiv(clusters, teams);
  Value tid = kb.threadId();
  Value team = kb.div(tid, kb.index(lanes)), lane = kb.rem(tid, kb.index(lanes));
  Value partials = kb.workgroupBuffer(size);
  Value localMax = kb.forLoop(
      kb.index(0), kb.index(passes), kb.index(1), {kb.f32(-3.4e38f)},
      [&](Value pass, ValueRange carried) -> SmallVector<Value> {
        Value first = kb.mul(pass, kb.index(teams));
        Value c = kb.add(first, team);
        Value valid = kb.ult(c, kb.index(clusters));
        Value row = kb.select(valid, c, kb.index(0));
        Value partial = kb.forLoop(lane, kb.index(hidden), kb.index(lanes), {kb.f32(0.0f)},
                                   [&](Value i, ValueRange s) -> SmallVector<Value> {
          return {kb.fadd(s[0], kb.fmul(kb.load(weights, {row, i}), kb.load(x, {i})))};
        })[0];
        kb.store(kb.select(valid, partial, kb.f32(0.0f)), partials, {tid});
        kb.barrier();
        // This thread owns cluster first + offset when offset < teams.
        Value offset = kb.rem(kb.sub(kb.add(tid, kb.index(size)),
                                     kb.rem(first, kb.index(size))),
                              kb.index(size));
        Value mine = kb.b.create<arith::AndIOp>(
            kb.loc, kb.ult(offset, kb.index(teams)),
            kb.ult(kb.add(first, offset), kb.index(clusters)));
        Value owned = kb.select(mine, offset, kb.index(0));
        Value z = kb.forLoop(kb.index(0), kb.index(lanes), kb.index(1), {kb.f32(0.0f)},
                             [&](Value j, ValueRange s) -> SmallVector<Value> {
          Value at = kb.add(kb.mul(owned, kb.index(lanes)), j);
          return {kb.fadd(s[0], kb.load(partials, {at}))};
        })[0];
        kb.ifThen(mine, [&] { kb.store(z, out, {kb.add(first, owned)}); });
        Value m = kb.select(mine, kb.fmax(carried[0], z), carried[0]);
        // The next pass overwrites the partials.
        kb.barrier();
        return {m};
      })[0];
  logSoftmaxInPlace(kb, out, kb.index(0), clusters, localMax, kb.f32(0.0f));
}

KernelShape shapeOf(stage::HeadRowsOp op, const StageToGPUOptions &o) {
  return {o.headWorkgroupSize, memrefSize(op.getClusterLogp(), 0)};
}

void buildKernel(stage::HeadRowsOp op, KernelBuilder &kb) {
  int64_t vocab = memrefSize(op.getRows(), 0);
  int64_t clusterSize = vocab / memrefSize(op.getClusterLogp(), 0);
  int64_t groups = memrefSize(op.getRows(), 1);
  int64_t hidden = memrefSize(op.getInput(), 0);
  Value x = kb.buffer(op.getInput()), rows = kb.buffer(op.getRows());
  Value out = kb.buffer(op.getOut());
  Value cluster = kb.workgroupId();
  Value base = kb.mul(cluster, kb.index(clusterSize));
  Value clusterLogp = kb.load(kb.buffer(op.getClusterLogp()), {cluster});
  Value gate = kb.paramF32(kb.buffer(op.getParams()), 2);
  Value closed = kb.b.create<arith::CmpFOp>(kb.loc, arith::CmpFPredicate::OLT,
                                            clusterLogp, gate);
  kb.ifThenElse(
      closed,
      [&] {
        kb.strided(kb.index(clusterSize), [&](Value t) {
          kb.store(kb.f32(-1e30f), out, {kb.add(base, t)});
        });
      },
      [&] {
        Value localMax = kb.strided(kb.index(clusterSize), kb.f32(-3.4e38f),
                                    [&](Value t, Value m) {
          Value row = kb.add(base, t);
          Value r = kb.packedRowDot(rows, row, kb.index(0), kb.index(groups),
                                    op.getFormat(), hidden,
                                    [&](Value c) { return kb.load(x, {c}); });
          if (op.getRowScale())
            r = kb.fmul(r, kb.load(kb.buffer(op.getRowScale()), {row}));
          kb.store(r, out, {row});
          return kb.fmax(m, r);
        });
        logSoftmaxInPlace(kb, out, base, clusterSize, localMax, clusterLogp);
      });
}

} // namespace kiln
