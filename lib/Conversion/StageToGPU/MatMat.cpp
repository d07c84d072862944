//===- MatMat.cpp - A multi-row program's mat-vec, its call rows together -===//
//
// In @prefill (Rows.h) a plain mat-vec multiplies the call's R rows by the same
// matrix: Y[R x N] = X[R x K] W^T. A workgroup of 256 threads computes a block of
// kBlockRows weight rows x kBlockCallRows call rows, walking K in steps of
// kStepColumns: each step its threads decode the block's weight groups into
// workgroup memory (f16 halves or q8_2f codes as f32, once for every call row)
// and copy the call rows' activations beside them (a warp reads 32 contiguous
// columns), then each thread accumulates a 4 x 2 tile of outputs from workgroup
// memory. The weights stream from memory once a block of call rows (once a call
// up to 32 rows), and every weight decoded is used 32 times.
//
//===----------------------------------------------------------------------===//
#include "Rows.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln {

namespace {
constexpr int64_t kWorkgroupSize = 256;
/// Weight rows (N) and call rows (M) a workgroup computes; columns (K) a step.
constexpr int64_t kBlockRows = 64, kBlockCallRows = 32, kStepColumns = 32;
/// A thread's outputs: 4 weight rows x 2 call rows.
constexpr int64_t kThreadRows = 4, kThreadCallRows = 2;
static_assert(kBlockRows / kThreadRows * (kBlockCallRows / kThreadCallRows) == kWorkgroupSize,
              "the thread tiles cover the block");
} // namespace

bool runsRowsTogether(stage::MatVecOp op, int64_t maxRows, const StageToGPUOptions &o) {
  // A grid of few blocks walks all the columns in few workgroups (latency
  // bound: embryo-1b's 16-row GDN gates as 2 blocks); a workgroup per call
  // row and item spreads them.
  int64_t blocks = ceilDiv(op.getRows(), kBlockRows) * ceilDiv(maxRows, kBlockCallRows);
  return o.prefillMatMatMinBlocks > 0 && o.reduceWorkgroupSize >= kWorkgroupSize &&
         blocks >= o.prefillMatMatMinBlocks &&
         !op.getExpert() && !op.getNorm() && !op.getUp() && !op.getSlerpUpdate() &&
         !op.getColScale() && !op.getHiddenOut() && op.getSplitK() == 1 &&
         !op.getAccumulate() && op.getActivation() == stage::Activation::none;
}

KernelShape shapeOfRowsTogether(stage::MatVecOp op, int64_t maxRows, const StageToGPUOptions &) {
  int64_t blocks = ceilDiv(op.getRows(), kBlockRows) * ceilDiv(maxRows, kBlockCallRows);
  return {kWorkgroupSize, std::min(blocks, kMaxGridWorkgroups)};
}

void buildRowsTogether(stage::MatVecOp op, Value count, int64_t maxRows, KernelBuilder &kb) {
  const bool q8 = op.getFormat() == stage::MatrixFormat::q8_2f;
  const int64_t rows = op.getRows(), columns = op.getColumns();
  const int64_t groups = memrefSize(op.getWeight(), 1);
  const int64_t groupColumns = q8 ? 16 : 8;
  const int64_t stepGroups = kStepColumns / groupColumns;
  const int64_t callBlocks = ceilDiv(maxRows, kBlockCallRows);
  const int64_t blocks = ceilDiv(rows, kBlockRows) * callBlocks;
  Value weight = kb.buffer(op.getWeight()), input = kb.buffer(op.getInput());
  Value out = kb.buffer(op.getOut());
  Value rowScale = op.getRowScale() ? kb.buffer(op.getRowScale()) : Value();
  Value fold = op.getFold() ? kb.buffer(op.getFold()) : Value();
  // Step k of the block: weights[k][n], activations[k][m].
  Value weights = kb.workgroupBuffer(kStepColumns * kBlockRows);
  Value activations = kb.workgroupBuffer(kStepColumns * kBlockCallRows);
  Value thread = kb.threadId();
  // The thread's output tile.
  Value tileRow = kb.mul(kb.rem(thread, kb.index(kBlockRows / kThreadRows)), kb.index(kThreadRows));
  Value tileCallRow =
      kb.mul(kb.div(thread, kb.index(kBlockRows / kThreadRows)), kb.index(kThreadCallRows));
  // The weight group this thread decodes each step (threads past the block's
  // groups decode none).
  Value loadRow = kb.div(thread, kb.index(stepGroups));
  Value loadGroup = kb.rem(thread, kb.index(stepGroups));
  const int64_t loaders = kBlockRows * stepGroups;
  int64_t grid = kb.gridWorkgroups(std::min(blocks, kMaxGridWorkgroups));
  // Blocks past the grid are walked by the same workgroups in turn: uniform
  // loops and tests throughout (the barriers need every thread).
  kb.forLoop(kb.workgroupId(), kb.index(blocks), kb.index(grid), [&](Value block) {
    Value firstRow = kb.mul(kb.div(block, kb.index(callBlocks)), kb.index(kBlockRows));
    Value firstCallRow = kb.mul(kb.rem(block, kb.index(callBlocks)), kb.index(kBlockCallRows));
    kb.ifThen(kb.ult(firstCallRow, count), [&] {
      SmallVector<Value> init(kThreadRows * kThreadCallRows, kb.f32(0.0f));
      SmallVector<Value> acc = kb.forLoop(
          kb.index(0), kb.index(ceilDiv(columns, kStepColumns)), kb.index(1), init,
          [&](Value step, ValueRange carried) -> SmallVector<Value> {
            Value firstColumn = kb.mul(step, kb.index(kStepColumns));
            // The block's weights of this step, decoded; rows past the matrix
            // and groups past the row are zeros.
            kb.ifThen(kb.ult(thread, kb.index(loaders)), [&] {
              Value row = kb.add(firstRow, loadRow);
              Value group = kb.add(kb.div(firstColumn, kb.index(groupColumns)), loadGroup);
              Value inside = arith::AndIOp::create(kb.b, kb.loc, kb.ult(row, kb.index(rows)),
                                                   kb.ult(group, kb.index(groups)));
              Value words = kb.load(weight, {kb.min(row, kb.index(rows - 1)),
                                             kb.min(group, kb.index(groups - 1))});
              auto put = [&](int64_t column, Value value) {
                Value k = kb.add(kb.mul(loadGroup, kb.index(groupColumns)), kb.index(column));
                Value at = kb.add(kb.mul(k, kb.index(kBlockRows)), loadRow);
                kb.store(kb.select(inside, value, kb.f32(0.0f)), weights, {at});
              };
              auto lanes = [&](Value vector, int64_t first, int64_t stride) {
                for (int64_t i = 0; i < 4; ++i)
                  put(first + stride * i, vector::ExtractOp::create(kb.b, kb.loc, vector, i));
              };
              if (q8) {
                for (int64_t byte = 0; byte < 4; ++byte)
                  lanes(kb.decodeCodes(words, byte), byte, 4);
              } else {
                auto [even, odd] = kb.decodeHalves(words);
                lanes(even, 0, 2);
                lanes(odd, 1, 2);
              }
            });
            // The call rows' activations of this step (a warp reads one call
            // row's 32 columns); past the call or the row: zeros.
            for (int64_t e = 0; e < kStepColumns * kBlockCallRows; e += kWorkgroupSize) {
              Value element = kb.add(thread, kb.index(e));
              Value m = kb.div(element, kb.index(kStepColumns));
              Value k = kb.rem(element, kb.index(kStepColumns));
              Value callRow = kb.add(firstCallRow, m);
              Value column = kb.add(firstColumn, k);
              Value inside = arith::AndIOp::create(kb.b, kb.loc, kb.ult(callRow, count),
                                                   kb.ult(column, kb.index(columns)));
              Value x = kb.load(input, {kb.min(callRow, kb.sub(count, kb.index(1))),
                                        kb.min(column, kb.index(columns - 1))});
              kb.store(kb.select(inside, x, kb.f32(0.0f)), activations,
                       {kb.add(kb.mul(k, kb.index(kBlockCallRows)), m)});
            }
            kb.barrier();
            SmallVector<Value> next(carried.begin(), carried.end());
            for (int64_t k = 0; k < kStepColumns; ++k) {
              SmallVector<Value> a, w;
              for (int64_t i = 0; i < kThreadCallRows; ++i)
                a.push_back(kb.load(activations, {kb.add(kb.index(k * kBlockCallRows),
                                                         kb.add(tileCallRow, kb.index(i)))}));
              for (int64_t j = 0; j < kThreadRows; ++j)
                w.push_back(kb.load(weights, {kb.add(kb.index(k * kBlockRows),
                                                     kb.add(tileRow, kb.index(j)))}));
              for (int64_t i = 0; i < kThreadCallRows; ++i)
                for (int64_t j = 0; j < kThreadRows; ++j) {
                  Value product = kb.fmul(a[i], w[j]);
                  next[i * kThreadRows + j] = kb.fadd(next[i * kThreadRows + j], product);
                }
            }
            // The next step overwrites what this one read.
            kb.barrier();
            return next;
          });
      for (int64_t i = 0; i < kThreadCallRows; ++i)
        for (int64_t j = 0; j < kThreadRows; ++j) {
          Value callRow = kb.add(firstCallRow, kb.add(tileCallRow, kb.index(i)));
          Value row = kb.add(firstRow, kb.add(tileRow, kb.index(j)));
          Value stored = arith::AndIOp::create(kb.b, kb.loc, kb.ult(callRow, count),
                                               kb.ult(row, kb.index(rows)));
          kb.ifThen(stored, [&] {
            Value v = acc[i * kThreadRows + j];
            if (rowScale)
              v = kb.fmul(v, kb.load(rowScale, {row}));
            if (fold)
              v = kb.fmul(v, kb.load(fold, {row}));
            kb.store(v, out, {callRow, row});
          });
        }
    });
  });
}

} // namespace kiln
