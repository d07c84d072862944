//===- KeyScores.cpp - What the two attention kernels share ---------------===//
//
// G lanes a key (the largest power of two at most 16 and the head dim), P =
// ceil(hd / G) dims a lane; a pass of the workgroup scores W / G keys, and a
// lane takes K such passes' keys at once (K · P loads in flight, at most
// kLoadsInFlight). Then for each of the K keys the lanes' partial dots meet
// in workgroup memory and lane t < W / G of the pass adds its key's G
// partials in lane order.
//
//===----------------------------------------------------------------------===//
#include "KeyScores.h"

#include <algorithm>

using namespace mlir;

namespace kiln {

/// f32 loads a lane keeps in flight for its keys, and the most keys it
/// takes at once (each adds two barriers to a trip).
static constexpr int64_t kLoadsInFlight = 32;
static constexpr int64_t kMaxKeysPerLane = 8;
/// Lanes that read one key (at most).
static constexpr int64_t kLanesPerKey = 16;

Value scoreKeys(KernelBuilder &kb, const KeyScoring &s, Value maxInit) {
  const int64_t hd = s.headDim, width = kb.getWorkgroupSize();
  int64_t lanes = 1;
  while (lanes * 2 <= std::min<int64_t>({kLanesPerKey, hd, width}))
    lanes *= 2;
  const int64_t dimsPerLane = (hd + lanes - 1) / lanes;
  const int64_t keysPerPass = width / lanes;
  const int64_t keysPerLane =
      std::clamp<int64_t>(kLoadsInFlight / dimsPerLane, 1, kMaxKeysPerLane);

  Value thread = kb.threadId();
  Value lane = kb.rem(thread, kb.index(lanes));
  Value slot = kb.div(thread, kb.index(lanes));
  // The lane's dims and query values, held across every key (a dim past the
  // head's reads dim 0 and weighs 0).
  SmallVector<Value> dims, queries, sinkQueries;
  for (int64_t i = 0; i < dimsPerLane; ++i) {
    Value d = kb.add(lane, kb.index(i * lanes));
    Value inHead = hd % lanes == 0 ? Value() : kb.ult(d, kb.index(hd));
    if (inHead)
      d = kb.select(inHead, d, kb.index(0));
    auto held = [&](const std::function<Value(Value)> &query) {
      Value q = query(d);
      return inHead ? kb.select(inHead, q, kb.f32(0.0f)) : q;
    };
    dims.push_back(d);
    queries.push_back(held(s.query));
    if (s.sinkQuery)
      sinkQueries.push_back(held(s.sinkQuery));
  }

  const int64_t keysPerTrip = keysPerPass * keysPerLane;
  Value trips = kb.div(kb.add(s.count, kb.index(keysPerTrip - 1)), kb.index(keysPerTrip));
  Value last = kb.sub(s.count, kb.index(1));
  Value localMax = kb.forLoop(kb.index(0), trips, kb.index(1), {maxInit},
                              [&](Value trip, ValueRange carried) -> SmallVector<Value> {
    Value tripBase = kb.mul(trip, kb.index(keysPerTrip));
    // Every load of the lane's keys first, then the dots.
    SmallVector<SmallVector<Value>> rows(keysPerLane);
    SmallVector<Value> keys;
    for (int64_t k = 0; k < keysPerLane; ++k) {
      Value u = kb.add(tripBase, kb.add(kb.mul(kb.index(k), kb.index(keysPerPass)), slot));
      keys.push_back(u);
      Value safe = kb.min(u, last);
      for (Value d : dims)
        rows[k].push_back(s.key(safe, d));
    }
    SmallVector<Value> dotsOfLane;
    for (int64_t k = 0; k < keysPerLane; ++k) {
      ArrayRef<Value> q = queries;
      SmallVector<Value> picked;
      if (s.sinkQuery) {
        Value isSink = kb.ult(keys[k], s.sinkCount);
        for (auto [plain, rotated] : llvm::zip(sinkQueries, queries))
          picked.push_back(kb.select(isSink, plain, rotated));
        q = picked;
      }
      Value dot = kb.fmul(q[0], rows[k][0]);
      for (int64_t i = 1; i < dimsPerLane; ++i)
        dot = kb.fadd(dot, kb.fmul(q[i], rows[k][i]));
      dotsOfLane.push_back(dot);
    }
    Value m = carried[0];
    for (int64_t k = 0; k < keysPerLane; ++k) {
      kb.store(dotsOfLane[k], s.partials, {thread});
      kb.barrier();
      // Lane t < W / G of the pass: key tripBase + k·(W/G) + t.
      Value u = kb.add(tripBase, kb.add(kb.index(k * keysPerPass), thread));
      Value owner = kb.ult(thread, kb.index(keysPerPass));
      Value first = kb.mul(kb.min(thread, kb.index(keysPerPass - 1)), kb.index(lanes));
      Value total = kb.load(s.partials, {first});
      for (int64_t j = 1; j < lanes; ++j)
        total = kb.fadd(total, kb.load(s.partials, {kb.add(first, kb.index(j))}));
      Value score = kb.fmul(total, s.scale);
      Value stores = arith::AndIOp::create(kb.b, kb.loc, owner, kb.ult(u, s.count));
      kb.ifThen(stores, [&] { kb.store(score, s.scores, {u}); });
      m = kb.select(stores, kb.fmax(m, score), m);
      kb.barrier();
    }
    return {m};
  })[0];
  return kb.reduce(localMax, ReduceKind::Max);
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
