//===- MatVec.cpp - The packed mat-vec kernel -----------------------------===//
//
// One workgroup per (row, chunk) item: its threads walk the chunk's 16-byte
// groups side by side (thread t reads groups t, t + W, ...), so a subgroup's
// loads are contiguous and every load is 16 bytes wide; a workgroup
// reduction sums the partials and thread 0 writes the value (K = split_k
// planes, the next norm adds them). Items past the grid are walked by the
// same workgroups in turn: the grid never exceeds 65535 workgroups, the
// smallest maxComputeWorkGroupCount Vulkan allows, whatever the vocabulary.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kiln {

/// Vulkan's guaranteed minimum of maxComputeWorkGroupCount[0].
static constexpr int64_t kMaxWorkgroups = 65535;

KernelShape shapeOf(stage::MatVecOp op, const StageToGPUOptions &o) {
  int64_t groups = memrefSize(op.getWeight(), 1);
  int64_t perChunk = ceilDiv(groups, op.getSplitK());
  // As many threads as the chunk has groups, within [32, reduce size]: short
  // rows do not idle a wide workgroup, long rows get several groups a thread.
  int64_t size = std::max<int64_t>(32, llvm::PowerOf2Ceil(perChunk));
  size = std::min<int64_t>(size, o.reduceWorkgroupSize);
  int64_t items = op.getRows() * op.getSplitK();
  return {size, std::min(items, kMaxWorkgroups)};
}

void buildKernel(stage::MatVecOp op, KernelBuilder &kb) {
  int64_t rows = op.getRows(), splitK = op.getSplitK();
  int64_t groups = memrefSize(op.getWeight(), 1);
  int64_t perChunk = ceilDiv(groups, splitK);
  int64_t items = rows * splitK;
  int64_t workgroups = std::min(items, kMaxWorkgroups);
  Value weight = kb.buffer(op.getWeight());
  Value input = kb.buffer(op.getInput());
  Value up = op.getUp() ? kb.buffer(op.getUp()) : Value();
  Value out = kb.buffer(op.getOut());
  Value tid = kb.threadId();
  Value width = kb.index(kb.getWorkgroupSize());

  // The item loop is uniform across the workgroup, as the reduction's
  // barriers require.
  kb.forLoop(kb.workgroupId(), kb.index(items), kb.index(workgroups),
             [&](Value item) {
    Value row = kb.div(item, kb.index(splitK));
    Value chunk = kb.rem(item, kb.index(splitK));
    Value first = kb.mul(chunk, kb.index(perChunk));
    Value end = kb.min(kb.add(first, kb.index(perChunk)), kb.index(groups));
    Value partial = kb.packedRowDot(
        weight, row, kb.add(first, tid), end, op.getFormat(), op.getColumns(),
        [&](Value column) {
          Value x = kb.load(input, {column});
          if (up)
            x = kb.fmul(kb.silu(x), kb.load(up, {column}));
          return x;
        },
        width);
    Value y = kb.reduce(partial, ReduceKind::Add);
    kb.ifThen(kb.ult(tid, kb.index(1)), [&] {
      Value v = y;
      if (op.getRowScale())
        v = kb.fmul(v, kb.load(kb.buffer(op.getRowScale()), {row}));
      if (op.getFold())
        v = kb.fmul(v, kb.load(kb.buffer(op.getFold()), {row}));
      SmallVector<Value> at;
      if (splitK > 1)
        at = {chunk, row};
      else
        at = {row};
      if (op.getAccumulate())
        v = kb.fadd(v, kb.load(out, at));
      kb.store(v, out, at);
    });
  });
}

} // namespace kiln
