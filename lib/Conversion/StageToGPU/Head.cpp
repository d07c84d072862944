//===- Head.cpp - The hierarchical head: cluster log-probs, then rows -----===//
//
// cluster_logits: the raw cluster logits, a workgroup per few clusters, its
// threads side by side along the rows (coalesced). head_rows: a workgroup per
// cluster, which first turns the cluster logits into its cluster's
// log-probability, then computes its rows a few at a time, the threads side
// by side (coalesced); a
// cluster whose log-probability is below the gate (params word 2), or outside
// the head top-p set (word 7), writes −1e30 for its tokens and reads no row.
// Both are uniform per workgroup,
// so the reductions inside the open branch are reached by every lane.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;

namespace kiln {

/// head_rows: the widest workgroup, the rows it computes at a time, and the
/// 16-byte loads a thread keeps in flight for them. A cluster's rows are one
/// workgroup's chain of items (load, reduce, next): with 64 threads and a
/// mat-vec's 4 rows and 8 loads, embryo-1b's 128-row clusters took 32 items
/// and 108 us on the H200 for 134 MB. Measured the same session (f16 /
/// q8_2f us): 64 threads x 8 rows 107 / 117, 256 x 8 101 / 124, 256 x 16
/// 107 / 117, 128 x 16 74 / 74 (docs/performance.md).
static constexpr int64_t kHeadRowsMaxWorkgroup = 128;
static constexpr int64_t kHeadRowsPerItem = 16;
static constexpr int64_t kHeadRowLoadsInFlight = 32;

/// head_rows by subgroups (StageToGPUOptions::headRowsBySubgroup): a subgroup
/// a few rows at a time, no workgroup barrier between them, so a cluster's
/// rows are in flight in many subgroups at once instead of one chain of
/// workgroup items (the plain subgroup-a-row mat-vec read embryo-1b's
/// 32768 x 2048 head at 2.82 TB/s on an H100 where the chain read 1.54).
/// About this many rows a subgroup, at most this wide a workgroup, and
/// the rows a subgroup computes together.
static constexpr int64_t kHeadRowsPerSubgroup = 8;
static constexpr int64_t kHeadRowsSubgroupWorkgroup = 512;
static constexpr int64_t kHeadRowsSubgroupBatch = 2;
/// A cluster's row values wait in workgroup memory for its log-softmax; past
/// this many rows the workgroup form runs instead.
static constexpr int64_t kHeadRowsMaxStagedRows = 4096;

static bool headRowsBySubgroups(stage::HeadRowsOp op, const StageToGPUOptions &o) {
  int64_t clusterSize = memrefSize(op.getRows(), 0) / memrefSize(op.getClusterLogits(), 0);
  return o.headRowsBySubgroup && o.subgroupReduce && clusterSize <= kHeadRowsMaxStagedRows;
}

/// Cluster rows are f32: an item holds as many as an f16 mat-vec's.
static int64_t clustersPerItem(int64_t clusters, const StageToGPUOptions &o) {
  return rowsPerItem(stage::MatrixFormat::f16, clusters, o);
}

KernelShape shapeOf(stage::ClusterLogitsOp op, const StageToGPUOptions &o) {
  int64_t clusters = memrefSize(op.getClusters(), 0);
  int64_t hidden = memrefSize(op.getInput(), 0);
  // About 8 columns a thread and row, as a mat-vec's 16-byte groups.
  int64_t size = std::max<int64_t>(32, llvm::PowerOf2Ceil(ceilDiv(hidden, 8)));
  size = std::min<int64_t>(size, o.reduceWorkgroupSize);
  return {size, std::min(ceilDiv(clusters, clustersPerItem(clusters, o)), kMaxGridWorkgroups)};
}

void buildKernel(stage::ClusterLogitsOp op, KernelBuilder &kb) {
  int64_t clusters = memrefSize(op.getClusters(), 0);
  int64_t hidden = memrefSize(op.getInput(), 0);
  Value x = kb.buffer(op.getInput()), weights = kb.buffer(op.getClusters());
  Value out = kb.buffer(op.getOut());
  int64_t perItem = clustersPerItem(clusters, kb.options());
  int64_t items = ceilDiv(clusters, perItem);
  int64_t workgroups = kb.gridWorkgroups(std::min(items, kMaxGridWorkgroups));
  Value tid = kb.threadId();
  // A workgroup per item of `perItem` clusters, its threads side by side
  // along the rows (coalesced); the item loop is uniform, as reduceMany's
  // barriers require.
  kb.forLoop(kb.workgroupId(), kb.index(items), kb.index(workgroups), [&](Value item) {
    Value first = kb.mul(item, kb.index(perItem));
    SmallVector<Value> rows;
    for (int64_t r = 0; r < perItem; ++r)
      rows.push_back(kb.min(kb.add(first, kb.index(r)), kb.index(clusters - 1)));
    SmallVector<Value> init(perItem, kb.f32(0.0f));
    SmallVector<Value> partials = kb.forLoop(
        tid, kb.index(hidden), kb.index(kb.getWorkgroupSize()), init,
        [&](Value i, ValueRange sums) -> SmallVector<Value> {
          Value xi = kb.load(x, {i});
          SmallVector<Value> next;
          for (int64_t r = 0; r < perItem; ++r)
            next.push_back(kb.fadd(sums[r], kb.fmul(kb.load(weights, {rows[r], i}), xi)));
          return next;
        });
    SmallVector<Value> totals = kb.reduceMany(partials);
    Value y = kb.pickByThread(totals);
    Value row = kb.add(first, tid);
    kb.ifThen(arith::AndIOp::create(kb.b, kb.loc, kb.ult(tid, kb.index(perItem)),
                                         kb.ult(row, kb.index(clusters))),
              [&] { kb.store(y, out, {row}); });
  });
}

/// The log-softmax of `count` values, shifted by `shift`: value(i) reads
/// value i, finish(i, offset) writes value i + offset (offset = shift −
/// logsumexp); `localMax` is this lane's max over the values it reads in
/// strided() order.
static void logSoftmax(KernelBuilder &kb, int64_t count, Value localMax, Value shift,
                       const std::function<Value(Value)> &value,
                       const std::function<void(Value, Value)> &finish) {
  Value maxValue = kb.reduce(localMax, ReduceKind::Max);
  Value localSum = kb.strided(kb.index(count), kb.f32(0.0f), [&](Value i, Value s) {
    return kb.fadd(s, kb.exp(kb.fsub(value(i), maxValue)));
  });
  Value sum = kb.reduce(localSum, ReduceKind::Add);
  Value offset = kb.fsub(shift, kb.fadd(maxValue, kb.log(sum)));
  kb.strided(kb.index(count), [&](Value i) { finish(i, offset); });
}

/// out = v - logsumexp(v) over `count` values already stored in `out[base..]`,
/// where `localMax` is this lane's max over the values it stored.
static void logSoftmaxInPlace(KernelBuilder &kb, Value out, Value base,
                              int64_t count, Value localMax, Value shift) {
  logSoftmax(
      kb, count, localMax, shift, [&](Value i) { return kb.load(out, {kb.add(base, i)}); },
      [&](Value i, Value offset) {
        Value at = kb.add(base, i);
        kb.store(kb.fadd(kb.load(out, {at}), offset), out, {at});
      });
}

/// The hidden state the head's rows multiply: f32 loads, and vector loads
/// where the kernel has a vector view of it.
static Activation hiddenActivation(stage::HeadRowsOp op, KernelBuilder &kb) {
  Value x = kb.buffer(op.getInput());
  Activation hidden{[&kb, x](Value c) { return kb.load(x, {c}); }};
  if (Value view = kb.vectorView(op.getInput()))
    hidden.quad = [&kb, view](Value q) { return kb.load(view, {q}); };
  return hidden;
}

/// An open cluster by subgroups: subgroup s computes row blocks s, s + S,
/// ... of kHeadRowsSubgroupBatch rows, its lanes side by side along each row
/// (one subgroup reduction a block), and parks the values in workgroup
/// memory; after one barrier the workgroup takes the cluster's log-softmax
/// there and writes every row once.
static void openClusterBySubgroups(stage::HeadRowsOp op, KernelBuilder &kb, Value base,
                                   int64_t clusterSize, Value clusterLogp) {
  int64_t groups = memrefSize(op.getRows(), 1);
  int64_t hidden = memrefSize(op.getInput(), 0);
  Value rows = kb.buffer(op.getRows());
  Value out = kb.buffer(op.getOut());
  Value staged = kb.workgroupBuffer(clusterSize);
  int64_t batch = std::min(kHeadRowsSubgroupBatch, clusterSize);
  int64_t blocks = ceilDiv(clusterSize, batch);
  // A workgroup narrower than a subgroup is one partial subgroup.
  Value subgroupSize = kb.subgroupSize();
  Value lanes = kb.min(subgroupSize, kb.index(kb.getWorkgroupSize()));
  Value lane = kb.laneId();
  Value firstBlock = kb.subgroupId();
  Value blockStep = kb.numSubgroups();
  SmallVector<unsigned> inputOf(batch, 0);
  kb.forLoop(firstBlock, kb.index(blocks), blockStep, [&](Value block) {
    Value first = kb.mul(block, kb.index(batch));
    SmallVector<std::pair<Value, Value>> weightRows;
    SmallVector<Value> rowIds;
    for (int64_t r = 0; r < batch; ++r) {
      // A ragged last block reads the last row again and stores nothing.
      Value unclamped = kb.add(first, kb.index(r));
      Value i = kb.min(unclamped, kb.index(clusterSize - 1));
      rowIds.push_back(i);
      weightRows.push_back({rows, kb.add(base, i)});
    }
    SmallVector<Value> totals = kb.subgroupSumMany(stridedRowDots(
        kb, op.getFormat(), hidden, weightRows, lane, kb.index(groups), lanes,
        {hiddenActivation(op, kb)}, inputOf, kHeadRowLoadsInFlight));
    for (int64_t r = 0; r < batch; ++r) {
      Value i = kb.add(first, kb.index(r));
      // One op a statement: the IR must not depend on argument order.
      Value inCluster = kb.ult(i, kb.index(clusterSize));
      Value firstLane = kb.ult(lane, kb.index(1));
      Value mine = arith::AndIOp::create(kb.b, kb.loc, inCluster, firstLane);
      kb.ifThen(mine, [&] {
        Value v = totals[r];
        if (op.getRowScale())
          v = kb.fmul(v, kb.load(kb.buffer(op.getRowScale()), {kb.add(base, rowIds[r])}));
        kb.store(v, staged, {i});
      });
    }
  });
  kb.barrier();
  auto stagedValue = [&](Value i) { return kb.load(staged, {i}); };
  Value localMax = kb.strided(kb.index(clusterSize), kb.f32(-3.4e38f), [&](Value i, Value m) {
    return kb.fmax(m, stagedValue(i));
  });
  logSoftmax(kb, clusterSize, localMax, clusterLogp, stagedValue, [&](Value i, Value offset) {
    Value y = kb.fadd(stagedValue(i), offset);
    kb.store(y, out, {kb.add(base, i)});
  });
}

KernelShape shapeOf(stage::HeadRowsOp op, const StageToGPUOptions &o) {
  int64_t clusters = memrefSize(op.getClusterLogits(), 0);
  if (headRowsBySubgroups(op, o)) {
    // About kHeadRowsPerSubgroup rows a (planned 32-lane) subgroup.
    int64_t clusterSize = memrefSize(op.getRows(), 0) / clusters;
    int64_t subgroups = ceilDiv(clusterSize, kHeadRowsPerSubgroup);
    int64_t size = std::clamp<int64_t>(llvm::PowerOf2Ceil(subgroups * kPlannedSubgroupSize), 32,
                                       kHeadRowsSubgroupWorkgroup);
    return {std::min(size, o.reduceWorkgroupSize), clusters};
  }
  // A thread per 16-byte group of a row, within [32, 128] and the
  // reduction width.
  int64_t groups = memrefSize(op.getRows(), 1);
  int64_t size = std::clamp<int64_t>(llvm::PowerOf2Ceil(groups), 32, kHeadRowsMaxWorkgroup);
  return {std::min(size, o.reduceWorkgroupSize), memrefSize(op.getClusterLogits(), 0)};
}

void buildKernel(stage::HeadRowsOp op, KernelBuilder &kb) {
  int64_t vocab = memrefSize(op.getRows(), 0);
  int64_t clusterSize = vocab / memrefSize(op.getClusterLogits(), 0);
  int64_t groups = memrefSize(op.getRows(), 1);
  int64_t hidden = memrefSize(op.getInput(), 0);
  Value rows = kb.buffer(op.getRows());
  Value out = kb.buffer(op.getOut());
  Value cluster = kb.workgroupId();
  Value base = kb.mul(cluster, kb.index(clusterSize));
  // Every workgroup normalises the cluster logits itself (a few hundred
  // values) rather than waiting on a one-workgroup log-softmax kernel.
  Value logits = kb.buffer(op.getClusterLogits());
  int64_t clusters = memrefSize(op.getClusterLogits(), 0);
  Value zMax = kb.reduce(kb.strided(kb.index(clusters), kb.f32(-3.4e38f),
                                    [&](Value i, Value m) {
                                      return kb.fmax(m, kb.load(logits, {i}));
                                    }),
                         ReduceKind::Max);
  // Σ exp(z − max) over the clusters and, with a head top-p (params word 7),
  // the part of it from clusters with larger logits than this one: one pass,
  // one reduction round.
  const bool withTopP = memrefSize(op.getParams(), 0) > stage::kHeadTopPWord;
  Value own = kb.load(logits, {cluster});
  SmallVector<Value> init = {kb.f32(0.0f)};
  if (withTopP)
    init.push_back(kb.f32(0.0f));
  SmallVector<Value> sums = kb.reduceMany(kb.forLoop(
      kb.threadId(), kb.index(clusters), kb.index(kb.getWorkgroupSize()), init,
      [&](Value i, ValueRange acc) -> SmallVector<Value> {
        Value z = kb.load(logits, {i});
        Value e = kb.exp(kb.fsub(z, zMax));
        SmallVector<Value> next = {kb.fadd(acc[0], e)};
        if (withTopP) {
          Value higher = arith::CmpFOp::create(kb.b, kb.loc, arith::CmpFPredicate::OGT, z, own);
          next.push_back(kb.fadd(acc[1], kb.select(higher, e, kb.f32(0.0f))));
        }
        return next;
      }));
  Value zSum = sums[0];
  Value clusterLogp = kb.fsub(own, kb.fadd(zMax, kb.log(zSum)));
  Value params = kb.buffer(op.getParams());
  Value gate = kb.paramF32(params, 2);
  Value closed = arith::CmpFOp::create(kb.b, kb.loc, arith::CmpFPredicate::OLT,
                                            clusterLogp, gate);
  if (withTopP) {
    // Closed when the clusters strictly above this one already hold p of the
    // mass (the reference's smallest set reaching p, ties kept).
    Value topP = kb.paramF32(params, stage::kHeadTopPWord);
    Value cuts = arith::AndIOp::create(
        kb.b, kb.loc,
        arith::CmpFOp::create(kb.b, kb.loc, arith::CmpFPredicate::OLT, topP, kb.f32(1.0f)),
        arith::CmpFOp::create(kb.b, kb.loc, arith::CmpFPredicate::OGE, sums[1],
                              kb.fmul(topP, zSum)));
    closed = arith::OrIOp::create(kb.b, kb.loc, closed, cuts);
  }
  kb.ifThenElse(
      closed,
      [&] {
        kb.strided(kb.index(clusterSize), [&](Value t) {
          kb.store(kb.f32(-1e30f), out, {kb.add(base, t)});
        });
      },
      [&] {
        if (headRowsBySubgroups(op, kb.options())) {
          openClusterBySubgroups(op, kb, base, clusterSize, clusterLogp);
          return;
        }
        // The workgroup computes R rows at a time, every row read by all its
        // threads side by side (coalesced); row i is stored by thread
        // i mod W, the thread that owns it in strided() order, so the
        // log-softmax below reads only what its own thread wrote.
        int64_t perItem = std::min(kHeadRowsPerItem, clusterSize);
        Activation hiddenInput = hiddenActivation(op, kb);
        int64_t items = ceilDiv(clusterSize, perItem);
        Value tid = kb.threadId();
        Value localMax = kb.forLoop(
            kb.index(0), kb.index(items), kb.index(1), {kb.f32(-3.4e38f)},
            [&](Value item, ValueRange carried) -> SmallVector<Value> {
              Value first = kb.mul(item, kb.index(perItem));
              SmallVector<std::pair<Value, Value>> weightRows;
              for (int64_t r = 0; r < perItem; ++r)
                weightRows.push_back({rows, kb.add(base, kb.min(kb.add(first, kb.index(r)),
                                                                kb.index(clusterSize - 1)))});
              SmallVector<unsigned> inputOf(perItem, 0);
              SmallVector<Value> totals = kb.reduceMany(stridedRowDots(
                  kb, op.getFormat(), hidden, weightRows, tid, kb.index(groups),
                  kb.index(kb.getWorkgroupSize()), {hiddenInput}, inputOf,
                  kHeadRowLoadsInFlight));
              Value m = carried[0];
              for (int64_t r = 0; r < perItem; ++r) {
                Value i = kb.add(first, kb.index(r));
                Value mine = arith::AndIOp::create(kb.b,
                    kb.loc, kb.ult(i, kb.index(clusterSize)),
                    arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq,
                                               kb.rem(i, kb.index(kb.getWorkgroupSize())), tid));
                Value v = totals[r];
                if (op.getRowScale())
                  v = kb.fmul(v, kb.load(kb.buffer(op.getRowScale()), {weightRows[r].second}));
                kb.ifThen(mine, [&] { kb.store(v, out, {weightRows[r].second}); });
                m = kb.select(mine, kb.fmax(m, v), m);
              }
              return {m};
            })[0];
        logSoftmaxInPlace(kb, out, base, clusterSize, localMax, clusterLogp);
      });
}

} // namespace kiln
