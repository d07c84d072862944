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

  // One IR op a statement: the order of ops must not depend on the order a
  // compiler evaluates call arguments in.
  Value workgroup = kb.workgroupId();
  Value blockCount = kb.index(blocks);
  Value head = kb.div(workgroup, blockCount);
  Value block = kb.rem(workgroup, blockCount);
  Value spanKeys = kb.index(span);
  Value first = kb.mul(block, spanKeys);
  // The scores go to the scores buffer too: a straddling block's keys are
  // weighed again from there by the combine.
  KeyWalk walk = scoreKeys(scoresOp, kb, head, first, span, [&](Value u, Value score) {
    kb.store(score, scores, {head, u});
    Value at = kb.sub(u, first);
    kb.store(score, blockScores, {at});
  });
  kb.barrier();
  Value blockEnd = kb.add(first, spanKeys);
  Value limit = kb.min(blockEnd, walk.count);
  Value nonEmpty = kb.ult(first, limit);
  Value inBlock = kb.sub(limit, first);
  Value none = kb.index(0);
  Value keys = kb.select(nonEmpty, inBlock, none);

  // The block's maximum, then its weights (in place), their sum and the
  // lowest score kept (as the maximum of the negated scores).
  Value lowest = kb.f32(kMostNegative);
  Value localMax = kb.strided(keys, lowest, [&](Value i, Value m) {
    return kb.fmax(m, kb.load(blockScores, {i}));
  });
  Value blockMax = kb.reduce(localMax, ReduceKind::Max);
  Value thread = kb.threadId();
  Value width = kb.index(kb.getWorkgroupSize());
  Value zero = kb.f32(0.0f);
  Value floorAt = kb.f32(-16.0f);
  SmallVector<Value> local = kb.forLoop(
      thread, keys, width, {zero, lowest}, [&](Value i, ValueRange acc) -> SmallVector<Value> {
        Value score = kb.load(blockScores, {i});
        Value shifted = kb.fsub(score, blockMax);
        Value weight = kb.exp(shifted);
        Value negated = kb.fsub(zero, score);
        Value least = kb.fmax(acc[1], negated);
        if (tail.floor) {
          Value kept = fcmp(kb, arith::CmpFPredicate::OGE, shifted, floorAt);
          weight = kb.select(kept, weight, zero);
          least = kb.select(kept, least, acc[1]);
        }
        kb.store(weight, blockScores, {i});
        Value sum = kb.fadd(acc[0], weight);
        return {sum, least};
      });
  Value blockSum = kb.reduce(local[0], ReduceKind::Add);
  // The reductions' barriers also publish every lane's weights.
  Value negatedLow = kb.reduce(local[1], ReduceKind::Max);
  Value blockLow = kb.fsub(zero, negatedLow);

  KeyWalk blockWalk = walk;
  blockWalk.count = limit;
  auto sinkValue = [&](Value u, Value d) { return kb.load(tail.sinkV, {walk.kvHead, u, d}); };
  auto ringValue = [&](Value slot, Value d) {
    return kb.load(tail.vRing, {walk.kvHead, slot, d});
  };
  sumValueSlices(
      kb, hd, sliceSums,
      [&](Value d, Value slice, Value step) {
        Value from = kb.add(first, slice);
        return sumWeightedValues(
            kb, blockWalk, d, from, step, zero,
            [&](Value u) {
              Value at = kb.sub(u, first);
              return kb.load(blockScores, {at});
            },
            sinkValue, ringValue);
      },
      nullptr,
      [&](Value d, Value total) {
        Value header = kb.index(kHeader);
        Value at = kb.add(d, header);
        kb.store(total, partials, {head, block, at});
      });
  Value one = kb.index(1);
  Value threadZero = kb.ult(thread, one);
  kb.ifThen(threadZero, [&] {
    Value maxWord = kb.index(kMaxWord);
    kb.store(blockMax, partials, {head, block, maxWord});
    Value sumWord = kb.index(kSumWord);
    kb.store(blockSum, partials, {head, block, sumWord});
    Value lowWord = kb.index(kLowWord);
    kb.store(blockLow, partials, {head, block, lowWord});
  });

  Value expected = kb.i32(static_cast<int32_t>(blocks));
  runInLastWorkgroup(kb, counters, head, expected, [&] {
    auto header = [&](Value b, int64_t word) {
      Value at = kb.index(word);
      return kb.load(partials, {head, b, at});
    };
    Value localMax = kb.strided(blockCount, lowest, [&](Value b, Value m) {
      return kb.fmax(m, header(b, kMaxWord));
    });
    Value headMax = kb.reduce(localMax, ReduceKind::Max);
    Value headDim = kb.index(hd);
    Value qBase = kb.mul(head, headDim);
    FarPart far;
    if (auto window = dyn_cast<stage::WindowAttentionOp>(tailOp))
      far = buildFarPart(window, kb, walk.kvHead, qBase, headMax);
    Value exponent = far.exponent ? far.exponent : headMax;
    // Block b's scale (0: dropped) and, under the floor, whether its keys
    // are weighed again (1) in workgroup memory; the scaled weight sums
    // meet in one reduction.
    Value factors = kb.workgroupBuffer(blocks), straddles = kb.workgroupBuffer(blocks);
    auto keysOf = [&](Value b) {
      Value from = kb.mul(b, spanKeys);
      Value end = kb.add(from, spanKeys);
      Value to = kb.min(end, walk.count);
      return std::make_pair(from, to);
    };
    // Under the floor, the weight of key u against the head's maximum.
    auto floorWeight = [&](Value u) {
      Value score = kb.load(scores, {head, u});
      Value shifted = kb.fsub(score, exponent);
      Value kept = fcmp(kb, arith::CmpFPredicate::OGE, shifted, floorAt);
      Value weight = kb.exp(shifted);
      return kb.select(kept, weight, zero);
    };
    Value yes = kb.f32(1.0f);
    Value localMass = kb.strided(blockCount, zero, [&](Value b, Value mass) {
      Value shifted = kb.fsub(header(b, kMaxWord), exponent);
      Value factor = kb.exp(shifted);
      Value again = zero;
      Value fixed = zero;
      if (tail.floor) {
        Value kept = fcmp(kb, arith::CmpFPredicate::OGE, shifted, floorAt);
        Value lowShifted = kb.fsub(header(b, kLowWord), exponent);
        Value loses = fcmp(kb, arith::CmpFPredicate::OLT, lowShifted, floorAt);
        Value holds = fcmp(kb, arith::CmpFPredicate::OGE, lowShifted, floorAt);
        Value straddle = arith::AndIOp::create(kb.b, kb.loc, kept, loses);
        Value plain = arith::AndIOp::create(kb.b, kb.loc, kept, holds);
        factor = kb.select(plain, factor, zero);
        again = kb.select(straddle, yes, zero);
        auto [from, to] = keysOf(b);
        fixed = kb.ifThenElseValues(
            straddle,
            [&]() -> SmallVector<Value> {
              return {carriedLoop(kb, from, to, zero, [&](Value u, Value acc) {
                return kb.fadd(acc, floorWeight(u));
              })};
            },
            [&]() -> SmallVector<Value> { return {zero}; })[0];
      }
      kb.store(factor, factors, {b});
      kb.store(again, straddles, {b});
      Value scaled = kb.fmul(factor, header(b, kSumWord));
      Value both = kb.fadd(scaled, fixed);
      return kb.fadd(mass, both);
    });
    // The reduction's barriers also publish the factors.
    Value nearMass = kb.reduce(localMass, ReduceKind::Add);
    Value mass = tail.floor ? nearMass : kb.fadd(nearMass, far.mass);
    Value tiny = kb.f32(tail.floor ? 1e-20f : 1e-30f);
    Value divisor = kb.fmax(mass, tiny);
    Value inv = kb.fdiv(yes, divisor);
    Value gate, gateScale;
    if (auto window = dyn_cast<stage::WindowAttentionOp>(tailOp)) {
      gate = kb.buffer(window.getGate());
      gateScale = kb.buffer(window.getGateScale());
    }
    Value headerWords = kb.index(kHeader);
    Value half = kb.f32(0.5f);
    kb.strided(headDim, [&](Value d) {
      Value sumAt = kb.add(d, headerWords);
      Value acc = kb.sumSteps(none, blockCount, one, zero, kBlocksInFlight, [&](Value b) {
        Value sum = kb.load(partials, {head, b, sumAt});
        Value factor = kb.load(factors, {b});
        return kb.fmul(factor, sum);
      });
      if (tail.floor) {
        // The straddling blocks' keys, weighed against M (rare).
        acc = carriedLoop(kb, none, blockCount, acc, [&](Value b, Value sum) {
          Value flag = kb.load(straddles, {b});
          Value straddle = fcmp(kb, arith::CmpFPredicate::OGT, flag, half);
          auto [from, to] = keysOf(b);
          KeyWalk keysOfB = walk;
          keysOfB.count = to;
          return kb.ifThenElseValues(
              straddle,
              [&]() -> SmallVector<Value> {
                return {sumWeightedValues(kb, keysOfB, d, from, one, sum, floorWeight,
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
        Value product = kb.fmul(g, gs);
        y = kb.fmul(y, kb.sigmoid(product));
      }
      if (tail.fold)
        y = kb.fmul(y, kb.load(tail.fold, {at}));
      kb.store(y, tail.out, {at});
    });
  });
}

} // namespace kiln
