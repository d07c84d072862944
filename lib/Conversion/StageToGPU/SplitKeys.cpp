//===- SplitKeys.cpp - Attention in one kernel, split over blocks of keys -===//
//
// The `split_keys` fused form (stage.key_blocks): a workgroup per (query
// head, block of B keys) scores its keys as stage.key_scores does, takes
// their maximum m_b, weighs them against it and sums every head dim of their
// values, and writes (m_b, l_b, its lowest kept score, o_b[0..hd)) to the
// head's partials; the last workgroup of the head to count (a counter word
// per head, LastWorkgroup.cpp's hand-over) combines the head's blocks. So
// the values are read by as many workgroups as the keys, in the same kernel,
// and the combine reads B floats a key less than the scores.
//
// stage.attention's e^-16 floor is taken against the head's maximum M, which
// no block knows. A block keeps the keys within 16 of its own m_b, a superset
// of those within 16 of M: where m_b is more than 16 below M the block is
// dropped, where its lowest kept score is within 16 of M the sets are equal
// and it is scaled by e^(m_b - M), and only otherwise (a head whose scores
// spread over more than 16) are its keys summed again against M from the
// stored scores. The comparisons are the reference's own (s - M >= -16), so
// every key is kept or dropped exactly as one pass over the row would.
// stage.window_attention has no floor: its blocks scale by e^(m_b - c), c
// also covering the far part, which the combine adds as window_attention
// does.
//
//===----------------------------------------------------------------------===//
#include "DoryFarField.h"
#include "KeyScores.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace kiln {

namespace {

constexpr float kMostNegative = -3.4e38f;
constexpr int64_t kHeader = stage::KeyBlocksOp::kHeaderFloats;
/// Blocks' value sums a combine lane loads in one loop trip.
constexpr int64_t kBlocksInFlight = 8;
/// Header words of a block: its maximum, weight sum and lowest kept score.
enum Header : int64_t { kMaxWord = 0, kSumWord = 1, kLowWord = 2 };

Value fcmp(KernelBuilder &kb, arith::CmpFPredicate predicate, Value a, Value c) {
  return arith::CmpFOp::create(kb.b, kb.loc, predicate, a, c);
}

/// What the attention stage after the marker reads (stage.attention or
/// stage.window_attention).
struct AttentionTail {
  Operation *op;
  Value vRing, sinkV, out, fold;
  bool floor;
};

AttentionTail tailOf(Operation *op, KernelBuilder &kb) {
  AttentionTail t{op, {}, {}, {}, {}, false};
  auto bind = [&](auto attention) {
    t.vRing = kb.buffer(attention.getVRing());
    t.sinkV = attention.getSinkV() ? kb.buffer(attention.getSinkV()) : Value();
    t.out = kb.buffer(attention.getOut());
    t.fold = attention.getFold() ? kb.buffer(attention.getFold()) : Value();
  };
  if (auto attention = dyn_cast<stage::AttentionOp>(op)) {
    bind(attention);
    t.floor = true;
  } else {
    bind(cast<stage::WindowAttentionOp>(op));
  }
  return t;
}

} // namespace

KernelShape splitKeysShape(stage::KeyScoresOp scores, stage::KeyBlocksOp blocks,
                           const StageToGPUOptions &o) {
  int64_t heads = memrefSize(scores.getScores(), 0);
  return {splitAttentionWidth(o), heads * blocks.getNumBlocks()};
}

KernelShape shapeOf(stage::KeyBlocksOp, const StageToGPUOptions &) { return {1, 1}; }

void buildSplitKeys(stage::KeyScoresOp scoresOp, stage::KeyBlocksOp blocksOp,
                    Operation *tailOp, KernelBuilder &kb) {
  const int64_t hd = memrefSize(scoresOp.getKRing(), 2);
  const int64_t blocks = blocksOp.getNumBlocks();
  const int64_t span = static_cast<int64_t>(blocksOp.getBlockKeys());
  AttentionTail tail = tailOf(tailOp, kb);
  Value scores = kb.buffer(scoresOp.getScores());
  Value partials = kb.buffer(blocksOp.getPartials());
  Value counters = kb.buffer(blocksOp.getCounters());
  Value blockScores = kb.workgroupBuffer(span);
  Value sliceSums = kb.workgroupBuffer(kb.getWorkgroupSize());

  Value head = kb.div(kb.workgroupId(), kb.index(blocks));
  Value block = kb.rem(kb.workgroupId(), kb.index(blocks));
  Value first = kb.mul(block, kb.index(span));
  // The scores go to the scores buffer too: a straddling block's keys are
  // weighed again from there by the combine.
  KeyWalk walk = scoreKeys(scoresOp, kb, head, first, span, [&](Value u, Value score) {
    kb.store(score, scores, {head, u});
    Value at = kb.sub(u, first);
    kb.store(score, blockScores, {at});
  });
  kb.barrier();
  Value limit = kb.min(kb.add(first, kb.index(span)), walk.count);
  Value keys = kb.select(kb.ult(first, limit), kb.sub(limit, first), kb.index(0));

  // The block's maximum, then its weights (in place), their sum and the
  // lowest score kept (as the maximum of the negated scores).
  Value localMax = kb.strided(keys, kb.f32(kMostNegative), [&](Value i, Value m) {
    return kb.fmax(m, kb.load(blockScores, {i}));
  });
  Value blockMax = kb.reduce(localMax, ReduceKind::Max);
  SmallVector<Value> local = kb.forLoop(
      kb.threadId(), keys, kb.index(kb.getWorkgroupSize()),
      {kb.f32(0.0f), kb.f32(kMostNegative)}, [&](Value i, ValueRange acc) -> SmallVector<Value> {
        Value score = kb.load(blockScores, {i});
        Value shifted = kb.fsub(score, blockMax);
        Value weight = kb.exp(shifted);
        Value negated = kb.fsub(kb.f32(0.0f), score);
        Value lowest = kb.fmax(acc[1], negated);
        if (tail.floor) {
          Value kept = fcmp(kb, arith::CmpFPredicate::OGE, shifted, kb.f32(-16.0f));
          weight = kb.select(kept, weight, kb.f32(0.0f));
          lowest = kb.select(kept, lowest, acc[1]);
        }
        kb.store(weight, blockScores, {i});
        return {kb.fadd(acc[0], weight), lowest};
      });
  Value blockSum = kb.reduce(local[0], ReduceKind::Add);
  // The reductions' barriers also publish every lane's weights.
  Value blockLow = kb.fsub(kb.f32(0.0f), kb.reduce(local[1], ReduceKind::Max));

  KeyWalk blockWalk = walk;
  blockWalk.count = limit;
  auto sinkValue = [&](Value u, Value d) { return kb.load(tail.sinkV, {walk.kvHead, u, d}); };
  auto ringValue = [&](Value slot, Value d) {
    return kb.load(tail.vRing, {walk.kvHead, slot, d});
  };
  sumValueSlices(
      kb, hd, sliceSums,
      [&](Value d, Value slice, Value step) {
        return sumWeightedValues(
            kb, blockWalk, d, kb.add(first, slice), step, kb.f32(0.0f),
            [&](Value u) { return kb.load(blockScores, {kb.sub(u, first)}); }, sinkValue,
            ringValue);
      },
      nullptr,
      [&](Value d, Value total) {
        kb.store(total, partials, {head, block, kb.add(d, kb.index(kHeader))});
      });
  kb.ifThen(kb.ult(kb.threadId(), kb.index(1)), [&] {
    kb.store(blockMax, partials, {head, block, kb.index(kMaxWord)});
    kb.store(blockSum, partials, {head, block, kb.index(kSumWord)});
    kb.store(blockLow, partials, {head, block, kb.index(kLowWord)});
  });

  Value expected = kb.i32(static_cast<int32_t>(blocks));
  runInLastWorkgroup(kb, counters, head, expected, [&] {
    auto header = [&](Value b, int64_t word) {
      return kb.load(partials, {head, b, kb.index(word)});
    };
    Value headMax = kb.reduce(
        kb.strided(kb.index(blocks), kb.f32(kMostNegative),
                   [&](Value b, Value m) { return kb.fmax(m, header(b, kMaxWord)); }),
        ReduceKind::Max);
    Value qBase = kb.mul(head, kb.index(hd));
    FarPart far;
    if (auto window = dyn_cast<stage::WindowAttentionOp>(tailOp))
      far = buildFarPart(window, kb, walk.kvHead, qBase, headMax);
    Value exponent = far.exponent ? far.exponent : headMax;
    // Block b's scale (0: dropped) and, under the floor, whether its keys
    // are weighed again (1) in workgroup memory; the scaled weight sums
    // meet in one reduction.
    Value factors = kb.workgroupBuffer(blocks), straddles = kb.workgroupBuffer(blocks);
    auto keysOf = [&](Value b) {
      Value from = kb.mul(b, kb.index(span));
      Value to = kb.min(kb.add(from, kb.index(span)), walk.count);
      return std::make_pair(from, to);
    };
    // Under the floor, the weight of key u against the head's maximum.
    auto floorWeight = [&](Value u) {
      Value shifted = kb.fsub(kb.load(scores, {head, u}), exponent);
      Value kept = fcmp(kb, arith::CmpFPredicate::OGE, shifted, kb.f32(-16.0f));
      return kb.select(kept, kb.exp(shifted), kb.f32(0.0f));
    };
    Value localMass = kb.strided(kb.index(blocks), kb.f32(0.0f), [&](Value b, Value mass) {
      Value shifted = kb.fsub(header(b, kMaxWord), exponent);
      Value factor = kb.exp(shifted);
      Value again = kb.f32(0.0f);
      Value fixed = kb.f32(0.0f);
      if (tail.floor) {
        Value kept = fcmp(kb, arith::CmpFPredicate::OGE, shifted, kb.f32(-16.0f));
        Value lowShifted = kb.fsub(header(b, kLowWord), exponent);
        Value loses = fcmp(kb, arith::CmpFPredicate::OLT, lowShifted, kb.f32(-16.0f));
        Value holds = fcmp(kb, arith::CmpFPredicate::OGE, lowShifted, kb.f32(-16.0f));
        Value straddle = arith::AndIOp::create(kb.b, kb.loc, kept, loses);
        Value plain = arith::AndIOp::create(kb.b, kb.loc, kept, holds);
        factor = kb.select(plain, factor, kb.f32(0.0f));
        again = kb.select(straddle, kb.f32(1.0f), kb.f32(0.0f));
        auto [from, to] = keysOf(b);
        fixed = kb.ifThenElseValues(
            straddle,
            [&]() -> SmallVector<Value> {
              return {carriedLoop(kb, from, to, kb.f32(0.0f), [&](Value u, Value acc) {
                return kb.fadd(acc, floorWeight(u));
              })};
            },
            [&]() -> SmallVector<Value> { return {kb.f32(0.0f)}; })[0];
      }
      kb.store(factor, factors, {b});
      kb.store(again, straddles, {b});
      Value scaled = kb.fmul(factor, header(b, kSumWord));
      return kb.fadd(mass, kb.fadd(scaled, fixed));
    });
    // The reduction's barriers also publish the factors.
    Value nearMass = kb.reduce(localMass, ReduceKind::Add);
    Value inv;
    if (tail.floor)
      inv = kb.fdiv(kb.f32(1.0f), kb.fmax(nearMass, kb.f32(1e-20f)));
    else
      inv = kb.fdiv(kb.f32(1.0f), kb.fmax(kb.fadd(nearMass, far.mass), kb.f32(1e-30f)));
    Value gate, gateScale;
    if (auto window = dyn_cast<stage::WindowAttentionOp>(tailOp)) {
      gate = kb.buffer(window.getGate());
      gateScale = kb.buffer(window.getGateScale());
    }
    kb.strided(kb.index(hd), [&](Value d) {
      Value acc = kb.sumSteps(kb.index(0), kb.index(blocks), kb.index(1), kb.f32(0.0f),
                              kBlocksInFlight, [&](Value b) {
        Value sum = kb.load(partials, {head, b, kb.add(d, kb.index(kHeader))});
        return kb.fmul(kb.load(factors, {b}), sum);
      });
      if (tail.floor) {
        // The straddling blocks' keys, weighed against M (rare).
        acc = carriedLoop(kb, kb.index(0), kb.index(blocks), acc, [&](Value b, Value sum) {
          Value straddle = fcmp(kb, arith::CmpFPredicate::OGT, kb.load(straddles, {b}),
                                kb.f32(0.5f));
          auto [from, to] = keysOf(b);
          KeyWalk keysOfB = walk;
          keysOfB.count = to;
          return kb.ifThenElseValues(
              straddle,
              [&]() -> SmallVector<Value> {
                return {sumWeightedValues(kb, keysOfB, d, from, kb.index(1), sum, floorWeight,
                                          sinkValue, ringValue)};
              },
              [&]() -> SmallVector<Value> { return {sum}; })[0];
        });
      } else {
        acc = addFarValues(kb, far, walk.kvHead, d, acc);
      }
      Value at = kb.add(qBase, d);
      Value y = kb.fmul(acc, inv);
      if (gate) {
        Value g = kb.load(gate, {at});
        Value gs = kb.load(gateScale, {at});
        y = kb.fmul(y, kb.sigmoid(kb.fmul(g, gs)));
      }
      if (tail.fold)
        y = kb.fmul(y, kb.load(tail.fold, {at}));
      kb.store(y, tail.out, {at});
    });
  });
}

} // namespace kiln
