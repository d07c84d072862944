//===- DoryExit.cpp - Dory's early-exit test and the dispatch skip guard --===//
//
// exit_test runs in one workgroup: per row a max reduction (and, for logits,
// a sum of exponentials) and the comparison with the least f32 log-threshold
// (ExitTestOp::getLogThreshold), and lane 0 raises the flag when every row
// passes. The skip guard wraps a kernel's whole body in `if (flag[w] == 0)`:
// every lane of every workgroup reads the same word, so the branch is uniform
// and the barriers inside it stay legal.
//
//===----------------------------------------------------------------------===//
#include "DoryFarField.h"

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::ExitTestOp, const StageToGPUOptions &o) {
  return {o.reduceWorkgroupSize, 1};
}

/// Values a thread loads before folding them, each trip of the walks below:
/// one load at a time, dory-1b's two 32768-word walks (max, then Σ exp) took
/// 27.5 us (f16 plan) and 11.5 us (q8_2f plan) in one workgroup on an H100.
static constexpr int64_t kExitLoadsInFlight = 16;

/// fold(acc, v) over values i = thread, thread + W, ... < count, up to
/// kExitLoadsInFlight loads issued before their folds each trip.
static Value stridedLoadsFirst(KernelBuilder &kb, int64_t count, Value init,
                               const std::function<Value(Value)> &load,
                               const std::function<Value(Value, Value)> &fold) {
  const int64_t unroll =
      std::max<int64_t>(1, std::min(kExitLoadsInFlight, count / kb.getWorkgroupSize()));
  if (unroll == 1) // At most two values a thread: the plain strided walk.
    return stridedCarried(kb, kb.index(count), init,
                          [&](Value i, Value acc) { return fold(acc, load(i)); });
  return kb.stridedLoadsFirst(count, unroll, {init}, load,
                              [&](ValueRange acc, Value v, Value) -> SmallVector<Value> {
                                return {fold(acc[0], v)};
                              })[0];
}

void buildKernel(stage::ExitTestOp op, KernelBuilder &kb) {
  auto type = llvm::cast<MemRefType>(op.getInput().getType());
  int64_t rows = type.getRank() == 2 ? type.getDimSize(0) : 1;
  int64_t vocab = type.getDimSize(type.getRank() - 1);
  Value input = kb.buffer(op.getInput());
  auto load = [&](Value row, Value i) {
    return type.getRank() == 2 ? kb.load(input, {row, i}) : kb.load(input, {i});
  };
  Value bound = kb.f32(op.getLogThreshold());
  Value allConfident = arith::ConstantOp::create(kb.b, kb.loc, kb.b.getBoolAttr(true));
  allConfident = kb.forLoop(
      kb.index(0), kb.index(rows), kb.index(1), {allConfident},
      [&](Value row, ValueRange carried) -> SmallVector<Value> {
        auto rowValue = [&](Value i) { return load(row, i); };
        Value local = stridedLoadsFirst(kb, vocab, kb.f32(-3.4e38f), rowValue,
                                        [&](Value m, Value v) { return kb.fmax(m, v); });
        Value best = kb.reduce(local, ReduceKind::Max);
        if (op.getLogits()) {
          // max log-prob = max − logsumexp = −log Σ exp(l − max).
          Value sum = kb.reduce(
              stridedLoadsFirst(kb, vocab, kb.f32(0.0f), rowValue,
                                [&](Value s, Value v) {
                                  return kb.fadd(s, kb.exp(kb.fsub(v, best)));
                                }),
              ReduceKind::Add);
          best = arith::NegFOp::create(kb.b, kb.loc, kb.log(sum));
        }
        Value confident = arith::CmpFOp::create(kb.b,
            kb.loc, arith::CmpFPredicate::OGE, best, bound);
        return {arith::AndIOp::create(kb.b, kb.loc, carried[0], confident)};
      })[0];
  Value first = arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq,
                                           kb.threadId(), kb.index(0));
  kb.ifThen(arith::AndIOp::create(kb.b, kb.loc, first, allConfident), [&] {
    kb.store(kb.i32(1), kb.buffer(op.getFlag()),
             {kb.index(static_cast<int64_t>(op.getFlagWord()))});
  });
}

Value carriedLoop(KernelBuilder &kb, Value lb, Value ub, Value init,
                  const std::function<Value(Value, Value)> &body) {
  Value result = kb.forLoop(lb, ub, kb.index(1), {init},
                            [&](Value i, ValueRange acc) -> SmallVector<Value> {
                              return {body(i, acc[0])};
                            })[0];
  return kb.select(kb.ult(lb, ub), result, init);
}

Value stridedCarried(KernelBuilder &kb, Value count, Value init,
                     const std::function<Value(Value, Value)> &body) {
  Value lane = kb.threadId();
  Value result = kb.forLoop(lane, count, kb.index(kb.getWorkgroupSize()), {init},
                            [&](Value i, ValueRange acc) -> SmallVector<Value> {
                              return {body(i, acc[0])};
                            })[0];
  return kb.select(kb.ult(lane, count), result, init);
}

Operation *openSkipGuard(stage::DispatchOp dispatch, KernelBuilder &kb) {
  Value flag = dispatch.getSkipFlag();
  if (!flag)
    return nullptr;
  Value word = kb.load(kb.buffer(flag),
                       {kb.index(static_cast<int64_t>(*dispatch.getSkipWord()))});
  Value clear = arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq,
                                           word, kb.i32(0));
  auto guard = scf::IfOp::create(kb.b, kb.loc, clear, /*withElseRegion=*/false);
  kb.b.setInsertionPointToStart(guard.thenBlock());
  return guard;
}

} // namespace kiln
