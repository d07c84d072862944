//===- MatMat.cpp - A multi-row program's mat-vec, its call rows together -===//
//
// In @prefill (Rows.h) a plain mat-vec has the call's R rows to multiply by
// the same matrix. A workgroup takes an item of kWeightRows weight rows and
// walks the call's rows in tiles of T: its threads walk the row's 16-byte
// groups side by side as the decode kernel does, and each group, loaded and
// decoded once, is dotted with the T call rows' activations (read from the
// cache: every workgroup reads the same rows), kWeightRows x T sums a thread;
// one workgroup reduction gives the tile's totals, thread w·T + j storing
// weight row w of call row j. The weights stream from memory once a tile
// instead of once a call row.
//
//===----------------------------------------------------------------------===//
#include "Rows.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"

using namespace mlir;

namespace kiln {

namespace {
/// Weight rows an item: with a tile of 8 call rows, 32 sums a thread.
constexpr int64_t kWeightRows = 4;
/// Threads a workgroup: two groups a thread for a row of 2,048 f16 columns.
constexpr int64_t kWorkgroupSize = 128;
} // namespace

bool runsRowsTogether(stage::MatVecOp op, const StageToGPUOptions &o) {
  return o.prefillMatvecTogether && !op.getExpert() && !op.getNorm() && !op.getUp() &&
         !op.getSlerpUpdate() && !op.getColScale() && !op.getHiddenOut() &&
         op.getSplitK() == 1 && !op.getAccumulate() &&
         op.getActivation() == stage::Activation::none;
}

KernelShape shapeOfRowsTogether(stage::MatVecOp op, const StageToGPUOptions &o) {
  int64_t size = std::min<int64_t>(kWorkgroupSize, o.reduceWorkgroupSize);
  return {size, std::min(ceilDiv(op.getRows(), kWeightRows), kMaxGridWorkgroups)};
}

void buildRowsTogether(stage::MatVecOp op, Value count, KernelBuilder &kb) {
  const stage::MatrixFormat format = op.getFormat();
  const int64_t rows = op.getRows(), columns = op.getColumns();
  const int64_t groups = memrefSize(op.getWeight(), 1);
  const int64_t tile = std::max<int64_t>(1, kb.options().prefillRowTile);
  const int64_t weightRows = std::min(kWeightRows, rows);
  const int64_t items = ceilDiv(rows, weightRows);
  const int64_t width = kb.getWorkgroupSize();
  Value weight = kb.buffer(op.getWeight()), input = kb.buffer(op.getInput());
  Value out = kb.buffer(op.getOut());
  Value rowScale = op.getRowScale() ? kb.buffer(op.getRowScale()) : Value();
  Value fold = op.getFold() ? kb.buffer(op.getFold()) : Value();
  Value lastCallRow = kb.sub(count, kb.index(1));
  Value tiles = kb.div(kb.add(count, kb.index(tile - 1)), kb.index(tile));
  int64_t grid = kb.gridWorkgroups(std::min(items, kMaxGridWorkgroups));
  // Items past the grid are walked by the same workgroups in turn (a
  // uniform loop: the reduction needs every thread).
  kb.forLoop(kb.workgroupId(), kb.index(items), kb.index(grid), [&](Value item) {
    Value firstRow = kb.mul(item, kb.index(weightRows));
    // A ragged last item reads the last row again and stores nothing of it.
    SmallVector<Value> weightRowIds;
    for (int64_t w = 0; w < weightRows; ++w)
      weightRowIds.push_back(kb.min(kb.add(firstRow, kb.index(w)), kb.index(rows - 1)));
    kb.forLoop(kb.index(0), tiles, kb.index(1), [&](Value t) {
      Value firstCallRow = kb.mul(t, kb.index(tile));
      // A short last tile repeats the call's last row and stores it once.
      SmallVector<Value> callRows;
      for (int64_t j = 0; j < tile; ++j)
        callRows.push_back(kb.min(kb.add(firstCallRow, kb.index(j)), lastCallRow));
      SmallVector<Value> init(weightRows * tile, kb.f32(0.0f));
      SmallVector<Value> sums = kb.forLoop(
          kb.threadId(), kb.index(groups), kb.index(width), init,
          [&](Value group, ValueRange carried) -> SmallVector<Value> {
            SmallVector<Value> words;
            for (Value row : weightRowIds)
              words.push_back(kb.load(weight, {row, group}));
            SmallVector<Value> next(carried.begin(), carried.end());
            for (int64_t j = 0; j < tile; ++j) {
              SmallVector<Value> xs = kb.packedGroupInputs(
                  group, format, columns,
                  [&](Value column) { return kb.load(input, {callRows[j], column}); });
              for (int64_t w = 0; w < weightRows; ++w)
                next[w * tile + j] =
                    kb.packedGroupDotInputs(words[w], xs, next[w * tile + j], format);
            }
            return next;
          });
      SmallVector<Value> totals = kb.reduceMany(sums);
      Value thread = kb.threadId();
      kb.ifThen(kb.ult(thread, kb.index(weightRows * tile)), [&] {
        Value value = kb.pickBy(thread, totals);
        Value row = kb.add(firstRow, kb.div(thread, kb.index(tile)));
        Value callRow = kb.add(firstCallRow, kb.rem(thread, kb.index(tile)));
        Value stored = arith::AndIOp::create(kb.b, kb.loc, kb.ult(row, kb.index(rows)),
                                             kb.ult(callRow, count));
        kb.ifThen(stored, [&] {
          Value v = value;
          if (rowScale)
            v = kb.fmul(v, kb.load(rowScale, {row}));
          if (fold)
            v = kb.fmul(v, kb.load(fold, {row}));
          kb.store(v, out, {callRow, row});
        });
      });
      // The next tile's reduction reuses the workgroup memory.
      kb.barrier();
    });
  });
}

} // namespace kiln
