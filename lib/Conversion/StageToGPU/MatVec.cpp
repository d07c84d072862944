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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kiln {

/// Vulkan's guaranteed minimum of maxComputeWorkGroupCount[0].
static constexpr int64_t kMaxWorkgroups = 65535;
/// Groups a thread aims to read, and how many it loads before using them.
static constexpr int64_t kGroupsPerThread = 8;
static constexpr int64_t kUnroll = 4;

/// Σ over groups start, start + step, ... below `end` of a packed row: the
/// loads of kUnroll groups are issued before their arithmetic, then the
/// remainder one by one.
static Value stridedRowDot(KernelBuilder &kb, stage::MatVecOp op, Value weight,
                           Value row, Value start, Value end, int64_t step,
                           const std::function<Value(Value)> &input) {
  OpBuilder &b = kb.b;
  auto vecF32 = VectorType::get({4}, b.getF32Type());
  Value zero = b.create<arith::ConstantOp>(
      kb.loc, DenseElementsAttr::get(vecF32, b.getF32FloatAttr(0.0f)));
  Value span = kb.select(kb.ult(start, end), kb.sub(end, start), kb.index(0));
  Value count = kb.div(kb.add(span, kb.index(step - 1)), kb.index(step));
  Value blocks = kb.div(count, kb.index(kUnroll));
  Value acc = kb.forLoop(
      kb.index(0), blocks, kb.index(1), {zero},
      [&](Value k, ValueRange carried) -> SmallVector<Value> {
        Value base = kb.add(start, kb.mul(k, kb.index(kUnroll * step)));
        SmallVector<Value> groups, words;
        for (int64_t u = 0; u < kUnroll; ++u) {
          groups.push_back(kb.add(base, kb.index(u * step)));
          words.push_back(kb.load(weight, {row, groups.back()}));
        }
        Value sum = carried[0];
        for (int64_t u = 0; u < kUnroll; ++u)
          sum = kb.packedGroupDot(words[u], groups[u], sum, op.getFormat(),
                                  op.getColumns(), input);
        return {sum};
      })[0];
  acc = kb.forLoop(
      kb.mul(blocks, kb.index(kUnroll)), count, kb.index(1), {acc},
      [&](Value r, ValueRange carried) -> SmallVector<Value> {
        Value group = kb.add(start, kb.mul(r, kb.index(step)));
        Value words = kb.load(weight, {row, group});
        return {kb.packedGroupDot(words, group, carried[0], op.getFormat(),
                                  op.getColumns(), input)};
      })[0];
  return b.create<vector::ReductionOp>(kb.loc, vector::CombiningKind::ADD, acc);
}

KernelShape shapeOf(stage::MatVecOp op, const StageToGPUOptions &o) {
  int64_t groups = memrefSize(op.getWeight(), 1);
  int64_t perChunk = ceilDiv(groups, op.getSplitK());
  // About kGroupsPerThread groups a thread, within [32, reduce size]: enough
  // loads in flight per thread to hide latency, few enough partials that the
  // closing reduction stays cheap (measured on the H200, docs/performance.md).
  int64_t size = std::max<int64_t>(
      32, llvm::PowerOf2Ceil(ceilDiv(perChunk, kGroupsPerThread)));
  size = std::min<int64_t>(size, o.reduceWorkgroupSize);
  int64_t items = op.getRows() * op.getSplitK();
  return {size, std::min(items, kMaxWorkgroups)};
}

namespace {
/// One mat-vec's per-item body, with what it loads once per kernel.
class MatVecRows {
public:
  MatVecRows(stage::MatVecOp op, KernelBuilder &kb) : op(op), kb(kb) {
    rows = op.getRows();
    splitK = op.getSplitK();
    groups = memrefSize(op.getWeight(), 1);
    perChunk = ceilDiv(groups, splitK);
    weight = kb.buffer(op.getWeight());
    input = kb.buffer(op.getInput());
    up = op.getUp() ? kb.buffer(op.getUp()) : Value();
    out = kb.buffer(op.getOut());
    colScale = op.getColScale() ? kb.buffer(op.getColScale()) : Value();
    // A routed expert (stage.router's word, clamped to the last candidate so
    // a stray word stays in bounds): its rows and scales start at e·R, e·C.
    if (op.getExpert()) {
      Value word = kb.load(kb.buffer(op.getExpert()), {kb.index(0)});
      Value e = kb.min(kb.b.create<arith::IndexCastUIOp>(
                           kb.loc, kb.b.getIndexType(), word),
                       kb.index(op.getNumExperts() - 1));
      rowBase = kb.mul(e, kb.index(rows));
      colBase = kb.mul(e, kb.index(op.getColumns()));
    }
  }

  int64_t items() const { return rows * splitK; }

  /// Computes item (row, chunk) with the whole workgroup; thread 0 stores it.
  void emitItem(Value item) {
    Value tid = kb.threadId();
    Value row = kb.div(item, kb.index(splitK));
    Value chunk = kb.rem(item, kb.index(splitK));
    Value first = kb.mul(chunk, kb.index(perChunk));
    Value end = kb.min(kb.add(first, kb.index(perChunk)), kb.index(groups));
    Value wrow = rowBase ? kb.add(rowBase, row) : row;
    Value partial = stridedRowDot(
        kb, op, weight, wrow, kb.add(first, tid), end, kb.getWorkgroupSize(),
        [&](Value column) {
          Value x = kb.load(input, {column});
          if (up)
            x = kb.fmul(kb.silu(x), kb.load(up, {column}));
          if (colScale)
            x = kb.fmul(x, kb.load(colScale, {colBase ? kb.add(colBase, column)
                                                      : column}));
          return x;
        });
    Value y = kb.reduce(partial, ReduceKind::Add);
    kb.ifThen(kb.ult(tid, kb.index(1)), [&] {
      Value v = y;
      if (op.getRowScale())
        v = kb.fmul(v, kb.load(kb.buffer(op.getRowScale()), {wrow}));
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
  }

private:
  stage::MatVecOp op;
  KernelBuilder &kb;
  int64_t rows, splitK, groups, perChunk;
  Value weight, input, up, out, colScale, rowBase, colBase;
};
} // namespace

void buildKernel(stage::MatVecOp op, KernelBuilder &kb) {
  MatVecRows rows(op, kb);
  int64_t workgroups = kb.gridWorkgroups(std::min(rows.items(), kMaxWorkgroups));
  // The item loop is uniform across the workgroup, as the reduction's
  // barriers require.
  kb.forLoop(kb.workgroupId(), kb.index(rows.items()), kb.index(workgroups),
             [&](Value item) { rows.emitItem(item); });
}

void buildRowEpilogueKernel(ArrayRef<stage::MatVecOp> ops, KernelBuilder &kb,
                            const std::function<void(Value row)> &epilogue) {
  SmallVector<MatVecRows> matvecs;
  for (stage::MatVecOp op : ops)
    matvecs.emplace_back(op, kb);
  int64_t rows = stage::MatVecOp(ops.front()).getRows();
  int64_t workgroups = kb.gridWorkgroups(std::min(rows, kMaxWorkgroups));
  kb.forLoop(kb.workgroupId(), kb.index(rows), kb.index(workgroups), [&](Value row) {
    for (MatVecRows &m : matvecs)
      m.emitItem(row);
    // Thread 0 stored every mat-vec's value of this row: it alone reads them.
    kb.ifThen(kb.ult(kb.threadId(), kb.index(1)), [&] { epilogue(row); });
  });
}

} // namespace kiln
