//===- KeyScores.cpp - stage.key_scores, and what attention kernels share -===//
//
// key_scores: a workgroup per (query head, block of keys). G lanes a key
// (the largest power of two at most 16 and the head dim), P = ceil(hd / G)
// dims a lane; a pass of the workgroup scores W / G keys, and a lane takes K
// such passes' keys at once (K · P loads in flight, at most kLoadsInFlight):
// one such trip is the workgroup's block. The lanes' partial dots of all K
// keys meet in workgroup memory (K · W floats) behind one barrier, and
// thread t adds the G partials of keys t, t + W, ... (of the K · W / G) in
// lane order and stores their scores.
//
//===----------------------------------------------------------------------===//
#include "KeyScores.h"

#include <algorithm>

using namespace mlir;

namespace kiln {

namespace {

/// f32 loads a lane keeps in flight for its keys, and the most keys it
/// takes at once (each adds W floats of workgroup memory).
constexpr int64_t kLoadsInFlight = 32;
constexpr int64_t kMaxKeysPerLane = 8;
/// Lanes that read one key (at most).
constexpr int64_t kLanesPerKey = 16;
/// Keys a value lane loads in one loop trip (each an f32 load it would
/// otherwise wait for before the next).
constexpr int64_t kValueKeysInFlight = 16;

struct ScoreGeometry {
  int64_t lanes, dimsPerLane, keysPerPass, keysPerLane;
  int64_t block() const { return keysPerPass * keysPerLane; }
};

ScoreGeometry scoreGeometry(int64_t hd, int64_t width) {
  ScoreGeometry g;
  g.lanes = 1;
  while (g.lanes * 2 <= std::min<int64_t>({kLanesPerKey, hd, width}))
    g.lanes *= 2;
  g.dimsPerLane = (hd + g.lanes - 1) / g.lanes;
  g.keysPerPass = width / g.lanes;
  g.keysPerLane = std::clamp<int64_t>(kLoadsInFlight / g.dimsPerLane, 1, kMaxKeysPerLane);
  return g;
}

} // namespace

int64_t splitAttentionWidth(const StageToGPUOptions &o) {
  return std::min<int64_t>(o.attentionWorkgroupSize, 256);
}

int64_t keysPerScoreWorkgroup(int64_t headDim, int64_t width) {
  return scoreGeometry(headDim, width).block();
}

int64_t dimsPerValueWorkgroup(int64_t headDim, const StageToGPUOptions &o) {
  // A smaller slice doubles the workgroups and halves each lane's serial run
  // of keys; the slice must divide the head. The target chooses
  // (attention_value_dims: 8 on the H200), else 16.
  const int64_t most = o.attentionValueDims > 0 ? o.attentionValueDims : 16;
  int64_t dims = 1;
  while (dims < most && headDim % (dims * 2) == 0)
    dims *= 2;
  return dims;
}

Value KeyWalk::slotOf(KernelBuilder &kb, Value u) const {
  Value back = kb.sub(u, kb.index(sinks));
  return kb.rem(kb.sub(kb.add(current, kb.index(capacity)), back), kb.index(capacity));
}

KeyWalk walkKeys(KernelBuilder &kb, Value head, int64_t qh, int64_t kvh, int64_t capacity,
                 int64_t sinks, Value position,
                 const std::function<int64_t(int64_t)> &windowOf) {
  KeyWalk walk;
  walk.sinks = sinks;
  walk.capacity = capacity;
  walk.kvHead = kb.div(head, kb.index(qh / kvh));
  // The group's window: a select chain over the (few) KV heads.
  Value window = kb.index(windowOf(0));
  for (int64_t g = 1; g < kvh; ++g)
    if (windowOf(g) != windowOf(0))
      window = kb.select(arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq,
                                               walk.kvHead, kb.index(g)),
                         kb.index(windowOf(g)), window);
  Value ringKeys = kb.min(kb.add(position, kb.index(1)), window);
  walk.count = kb.add(kb.index(sinks), ringKeys);
  walk.current = kb.rem(position, kb.index(capacity));
  return walk;
}

Value sumWeightedValues(KernelBuilder &kb, const KeyWalk &walk, Value d, Value first,
                        Value step, Value init, const std::function<Value(Value)> &weight,
                        const std::function<Value(Value, Value)> &sinkValue,
                        const std::function<Value(Value, Value)> &ringValue) {
  Value acc = init;
  Value ringFirst = first;
  if (walk.sinks > 0) {
    Value sinks = kb.index(walk.sinks);
    // A walk cut short (a split_keys block) may end among the sinks.
    Value sinksEnd = kb.min(sinks, walk.count);
    acc = kb.sumSteps(first, sinksEnd, step, acc, 1, [&](Value u) {
      return kb.fmul(weight(u), sinkValue(u, d));
    });
    // The first of this lane's keys at or past the sinks.
    Value behind = kb.sub(sinks, first);
    Value skip = kb.mul(kb.div(kb.add(behind, kb.sub(step, kb.index(1))), step), step);
    ringFirst = kb.select(kb.ult(first, sinks), kb.add(first, skip), first);
  }
  return kb.sumSteps(ringFirst, walk.count, step, acc, kValueKeysInFlight, [&](Value u) {
    return kb.fmul(weight(u), ringValue(walk.slotOf(kb, u), d));
  });
}

KernelShape shapeOf(stage::KeyScoresOp op, const StageToGPUOptions &o) {
  int64_t hd = memrefSize(op.getKRing(), 2);
  int64_t heads = memrefSize(op.getQ(), 0) / hd;
  int64_t width = splitAttentionWidth(o);
  int64_t blocks = ceilDiv(memrefSize(op.getScores(), 1), keysPerScoreWorkgroup(hd, width));
  return {width, heads * blocks};
}

KeyWalk scoreKeys(stage::KeyScoresOp op, KernelBuilder &kb, Value head, Value first,
                  int64_t span, const std::function<void(Value u, Value score)> &store) {
  int64_t kvh = memrefSize(op.getKRing(), 0), cap = memrefSize(op.getKRing(), 1),
          hd = memrefSize(op.getKRing(), 2);
  int64_t qh = memrefSize(op.getQ(), 0) / hd;
  int64_t sinks = op.getNumSinks();
  const int64_t width = kb.getWorkgroupSize();
  ScoreGeometry geometry = scoreGeometry(hd, width);
  // A trip covers no more than the span (a split_keys block of few keys).
  geometry.keysPerLane = std::clamp<int64_t>(span / geometry.keysPerPass, 1,
                                             geometry.keysPerLane);
  const int64_t tripKeys = geometry.block();
  const int64_t trips = ceilDiv(span, tripKeys);
  Value q = kb.buffer(op.getQ()), kRing = kb.buffer(op.getKRing());
  // Sinks take their own query only when one is given (Embryo's un-rotated q).
  Value sinkQ = op.getSinkQ() ? kb.buffer(op.getSinkQ()) : Value();
  Value sinkK = sinks > 0 ? kb.buffer(op.getSinkK()) : Value();
  Value partials = kb.workgroupBuffer(width * geometry.keysPerLane);

  Value position = kb.paramIndex(kb.buffer(op.getParams()),
                                 static_cast<int64_t>(op.getPositionWord()));
  KeyWalk walk = walkKeys(kb, head, qh, kvh, cap, sinks, position,
                          [&](int64_t g) { return op.getWindowOf(g); });
  Value qBase = kb.mul(head, kb.index(hd));
  Value scale = kb.f32(op.getScale().convertToFloat());
  // The keys this workgroup scores end at the span or the walk.
  Value limit = kb.min(kb.add(first, kb.index(span)), walk.count);

  Value thread = kb.threadId();
  Value lane = kb.rem(thread, kb.index(geometry.lanes));
  Value slot = kb.div(thread, kb.index(geometry.lanes));
  // The lane's dims and query values (a dim past the head's reads dim 0 and
  // weighs 0); loaded before the block test, so they are in flight early.
  SmallVector<Value> dims, queries, sinkQueries;
  for (int64_t i = 0; i < geometry.dimsPerLane; ++i) {
    Value d = kb.add(lane, kb.index(i * geometry.lanes));
    Value inHead = hd % geometry.lanes == 0 ? Value() : kb.ult(d, kb.index(hd));
    if (inHead)
      d = kb.select(inHead, d, kb.index(0));
    auto held = [&](Value vector) {
      Value value = kb.load(vector, {kb.add(qBase, d)});
      return inHead ? kb.select(inHead, value, kb.f32(0.0f)) : value;
    };
    dims.push_back(d);
    queries.push_back(held(q));
    if (sinkQ)
      sinkQueries.push_back(held(sinkQ));
  }
  auto trip = [&](Value tripFirst) {
    Value last = kb.sub(walk.count, kb.index(1));
    // Every load of the lane's keys first, then the dots.
    SmallVector<Value> keys, dots;
    for (int64_t k = 0; k < geometry.keysPerLane; ++k)
      keys.push_back(kb.add(tripFirst, kb.add(kb.index(k * geometry.keysPerPass), slot)));
    // The K x P key values, key by key (value i of key k at k·P + i). Key k
    // of a lane is key first + k·(W/G) + slot, so it can be a sink only where
    // k·(W/G) < sinks (first >= 0); with `withSinks` such a key loads its sink
    // and ring rows both (the other at a clamped row, in cache: the loads
    // stay straight-line code) and selects; every other key its ring row.
    auto maybeSink = [&](int64_t k) { return k * geometry.keysPerPass < sinks; };
    auto loadRows = [&](bool withSinks) {
      SmallVector<Value> values;
      for (auto [k, u] : llvm::enumerate(keys)) {
        Value safe = kb.min(u, last);
        // The key's ring slot (and sink row), once for all its dims.
        Value isSink =
            withSinks && maybeSink(k) ? kb.ult(safe, kb.index(sinks)) : Value();
        Value ringKey = isSink ? kb.select(isSink, kb.index(sinks), safe) : safe;
        Value sinkRow = isSink ? kb.select(isSink, safe, kb.index(0)) : Value();
        Value slot = walk.slotOf(kb, ringKey);
        for (Value d : dims) {
          Value ring = kb.load(kRing, {walk.kvHead, slot, d});
          values.push_back(isSink ? kb.select(isSink, kb.load(sinkK, {walk.kvHead, sinkRow, d}),
                                              ring)
                                  : ring);
        }
      }
      return values;
    };
    // Only the first blocks hold sinks (the test is uniform): the others load
    // no sink row (embryo-1b's anchor scores took 10.8 us a call in the
    // profile against Dory's 6.0 for the same keys without sinks).
    SmallVector<Value> loaded =
        sinks > 0 ? kb.ifThenElseValues(
                        kb.ult(tripFirst, kb.index(sinks)), [&] { return loadRows(true); },
                        [&] { return loadRows(false); })
                  : loadRows(false);
    for (int64_t k = 0; k < geometry.keysPerLane; ++k) {
      SmallVector<Value> picked(queries);
      if (sinkQ && maybeSink(k)) {
        Value isSink = kb.ult(keys[k], kb.index(sinks));
        for (auto [i, plain] : llvm::enumerate(sinkQueries))
          picked[i] = kb.select(isSink, plain, queries[i]);
      }
      const Value *row = &loaded[k * geometry.dimsPerLane];
      Value dot = kb.fmul(picked[0], row[0]);
      for (int64_t i = 1; i < geometry.dimsPerLane; ++i)
        dot = kb.fadd(dot, kb.fmul(picked[i], row[i]));
      dots.push_back(dot);
    }
    // Every key's partials in one round: key k's at k·W + thread, one
    // barrier, then the K·(W/G) keys' G partials are added in lane order,
    // key first + t by thread t mod W (more keys than threads where G < 8).
    // One barrier a block where a round a key took two (key_scores took
    // 7.5-7.9 us a call on an H100 with 8 a block).
    for (int64_t k = 0; k < geometry.keysPerLane; ++k)
      kb.store(dots[k], partials, {kb.add(thread, kb.index(k * width))});
    kb.barrier();
    kb.strided(kb.index(geometry.keysPerLane * geometry.keysPerPass), [&](Value t) {
      Value keyOfT = kb.div(t, kb.index(geometry.keysPerPass));
      Value slotOfT = kb.rem(t, kb.index(geometry.keysPerPass));
      Value from = kb.add(kb.mul(keyOfT, kb.index(width)),
                          kb.mul(slotOfT, kb.index(geometry.lanes)));
      Value total = kb.load(partials, {from});
      for (int64_t j = 1; j < geometry.lanes; ++j)
        total = kb.fadd(total, kb.load(partials, {kb.add(from, kb.index(j))}));
      Value u = kb.add(tripFirst, t);
      kb.ifThen(kb.ult(u, limit), [&] { store(u, kb.fmul(total, scale)); });
    });
  };
  // A block past the head's keys (early positions) has nothing to do; the
  // test is the same in every thread, so the barriers below stay uniform.
  if (trips == 1) {
    kb.ifThen(kb.ult(first, limit), [&] { trip(first); });
  } else {
    Value noTrip = kb.index(0);
    Value tripCount = kb.index(trips);
    Value oneTrip = kb.index(1);
    kb.forLoop(noTrip, tripCount, oneTrip, [&](Value t) {
      Value tripFirst = kb.add(first, kb.mul(t, kb.index(tripKeys)));
      kb.ifThen(kb.ult(tripFirst, limit), [&] {
        trip(tripFirst);
        // The next trip overwrites the partials this one's sums read.
        kb.barrier();
      });
    });
  }
  return walk;
}

void buildKernel(stage::KeyScoresOp op, KernelBuilder &kb) {
  int64_t hd = memrefSize(op.getKRing(), 2);
  const int64_t blockKeys = keysPerScoreWorkgroup(hd, kb.getWorkgroupSize());
  const int64_t blocks = ceilDiv(memrefSize(op.getScores(), 1), blockKeys);
  Value scores = kb.buffer(op.getScores());
  Value head = kb.div(kb.workgroupId(), kb.index(blocks));
  Value first = kb.mul(kb.rem(kb.workgroupId(), kb.index(blocks)), kb.index(blockKeys));
  scoreKeys(op, kb, head, first, blockKeys,
            [&](Value u, Value score) { kb.store(score, scores, {head, u}); });
}

void sumValueSlices(KernelBuilder &kb, int64_t hd, Value partials,
                    const std::function<Value(Value, Value, Value)> &slice,
                    const std::function<Value(Value, Value)> &firstSlice,
                    const std::function<void(Value, Value)> &store) {
  const int64_t slices = std::max<int64_t>(1, kb.getWorkgroupSize() / hd);
  auto first = [&](Value d, Value step) {
    return firstSlice ? firstSlice(d, step) : slice(d, kb.index(0), step);
  };
  if (slices == 1) {
    kb.strided(kb.index(hd), [&](Value d) { store(d, first(d, kb.index(1))); });
    return;
  }
  // Thread t is lane t mod hd of slice t / hd; threads past slices · hd idle.
  Value thread = kb.threadId();
  Value lane = kb.rem(thread, kb.index(hd));
  Value sliceId = kb.div(thread, kb.index(hd));
  if (firstSlice) {
    kb.ifThen(kb.ult(thread, kb.index(hd)), [&] {
      kb.store(firstSlice(lane, kb.index(slices)), partials, {thread});
    });
    Value rest = arith::AndIOp::create(kb.b, kb.loc, kb.uge(thread, kb.index(hd)),
                                       kb.ult(thread, kb.index(slices * hd)));
    kb.ifThen(rest, [&] {
      kb.store(slice(lane, sliceId, kb.index(slices)), partials, {thread});
    });
  } else {
    kb.ifThen(kb.ult(thread, kb.index(slices * hd)), [&] {
      kb.store(slice(lane, sliceId, kb.index(slices)), partials, {thread});
    });
  }
  kb.barrier();
  kb.ifThen(kb.ult(thread, kb.index(hd)), [&] {
    Value acc = kb.load(partials, {thread});
    for (int64_t s = 1; s < slices; ++s)
      acc = kb.fadd(acc, kb.load(partials, {kb.add(thread, kb.index(s * hd))}));
    store(thread, acc);
  });
}

} // namespace kiln
