//===- Prefetch.cpp - stage.prefetch: weights into the last-level cache ---===//
//
// Thread t of prefetch workgroup w loads groups first + w·W·L + k·W + t
// (k < L): a subgroup's loads are contiguous, and all L of a thread's are in
// flight together. Nothing needs the words, but a load whose value is unused
// is dead code to every compiler on the way (MLIR, the driver); so they are
// folded into one word, stored into the sink only when it equals a constant.
//
//===----------------------------------------------------------------------===//
#include "Prefetch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln {

namespace {
/// The sink is written when a thread's folded words equal this: about once in
/// 2^32 threads, and harmless when it happens (nothing reads the sink).
constexpr int32_t kSinkMatch = 0x5eed1e55;
} // namespace

int64_t prefetchWorkgroups(stage::PrefetchOp op, int64_t workgroupSize) {
  return ceilDiv(op.getGroups(), workgroupSize * kPrefetchGroupsPerThread);
}

void buildPrefetch(stage::PrefetchOp op, Value workgroup, KernelBuilder &kb) {
  Value source = kb.buffer(op.getSource());
  int64_t rowGroups = cast<MemRefType>(source.getType()).getDimSize(1);
  int64_t width = kb.getWorkgroupSize();
  int64_t first = op.getFirstGroup();
  Value end = kb.index(first + op.getGroups());
  Value base = kb.add(kb.add(kb.index(first),
                             kb.mul(workgroup, kb.index(width * kPrefetchGroupsPerThread))),
                      kb.threadId());
  SmallVector<Value> loaded;
  for (int64_t k = 0; k < kPrefetchGroupsPerThread; ++k) {
    Value group = kb.add(base, kb.index(k * width));
    // Past the range a thread loads the first group again (cached): no
    // branch, and every load in bounds.
    Value safe = arith::SelectOp::create(kb.b, kb.loc, kb.ult(group, end), group,
                                         kb.index(first));
    loaded.push_back(kb.load(source, {kb.div(safe, kb.index(rowGroups)),
                                      kb.rem(safe, kb.index(rowGroups))}));
  }
  Value folded = kb.i32(0);
  for (Value words : loaded)
    for (int64_t lane = 0; lane < 4; ++lane)
      folded = arith::XOrIOp::create(
          kb.b, kb.loc, folded, vector::ExtractOp::create(kb.b, kb.loc, words, lane));
  Value match = arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq, folded,
                                      kb.i32(kSinkMatch));
  kb.ifThen(match, [&] { kb.store(folded, kb.buffer(op.getSink()), {kb.index(0)}); });
}

} // namespace kiln
