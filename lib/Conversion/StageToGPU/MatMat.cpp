//===- MatMat.cpp - A multi-row program's mat-vec, its call rows together -===//
//
// In @prefill (Rows.h) a plain mat-vec multiplies the call's R rows by the same
// matrix: Y[R x N] = X[R x K] W^T. A workgroup of 256 threads computes a block of
// kBlockRows weight rows x kBlockCallRows call rows, walking K in steps of
// kStepColumns. Each step its threads decode the block's weight groups into
// workgroup memory (f16 halves or q8_2f codes as f32, four weight rows to a
// vec4) and copy the call rows' activations beside them (four call rows to a
// vec4); then each thread accumulates a 4 x 4 tile of outputs, two vec4 loads
// from workgroup memory for 16 multiply-adds a column. The next step's loads
// from memory are issued before this step's products and carried in registers,
// so they are in flight meanwhile. The weights stream from memory once a block
// of call rows, and every weight decoded is used 64 times.
//
// The layouts keep workgroup memory free of bank conflicts: a warp's weight
// reads are 16 distinct vec4s (its call-row reads two, broadcast), and the
// activation rows are padded by one vec4 so a warp's stores (8 columns x 4
// call-row quads) land in distinct banks.
//
//===----------------------------------------------------------------------===//
#include "Rows.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln {

namespace {
/// Weight rows (N) and call rows (M) a workgroup computes; columns (K) a step.
constexpr int64_t kBlockRows = 64, kBlockCallRows = 64, kStepColumns = 32;
static_assert(kBlockCallRows == kRoutedListRows, "a routed block lists its call rows");
/// Workgroup memory holds four weight rows (or call rows) to a vec4.
constexpr int64_t kQuad = 4;
constexpr int64_t kRowQuads = kBlockRows / kQuad, kCallQuads = kBlockCallRows / kQuad;
/// Vec4s a step's column of activations takes: its call-row quads and one of
/// padding (bank-conflict-free stores, above).
constexpr int64_t kActivationStride = kCallQuads + 1;
/// Columns of a step a warp's activation copy covers (one 32-byte sector a row).
constexpr int64_t kCopyColumns = 8;
static_assert(kStepColumns % kCopyColumns == 0, "the activation copy covers the step");
/// Workgroup memory of a step: its weights and its activations, vec4s.
constexpr int64_t kWorkgroupBytes = (kStepColumns * kRowQuads + kStepColumns * kActivationStride) *
                                    kQuad * int64_t(sizeof(float));
/// Blocks from which a product takes 8 x 8 tiles by default (on an H100 an
/// 8 x 8 tile ran embryo-1b's ffn gate, 704 blocks, at 25 TFLOP/s where the
/// 4 x 4 ran 17; with 256 blocks its 64-thread workgroups left the SMs short
/// of warps).
constexpr int64_t kWideTileMinBlocks = 512;
/// A routed expert's block also lists its call rows and each thread's count.
constexpr int64_t kRoutedWorkgroupBytes = int64_t(sizeof(int32_t)) * kBlockCallRows;

/// A thread's outputs: `tile` weight rows x `tile` call rows (4 or 8). Its
/// weight rows are the row quads `rowTile + tiles·u` (u < quadsPerTile), its
/// call rows likewise, so a warp's workgroup-memory reads of one u are
/// contiguous vec4s (no bank conflicts); the tiles of 64 rows x 64 call rows
/// take tiles² threads.
struct TileShape {
  int64_t tile, quadsPerTile, tiles, workgroupSize;
  explicit TileShape(int64_t tile)
      : tile(tile), quadsPerTile(tile / kQuad), tiles(kBlockRows / tile),
        workgroupSize(tiles * tiles) {}
};

/// A product's blocks: (expert,) weight-row block, call-row block.
int64_t blocksOf(stage::MatVecOp op, int64_t maxRows) {
  int64_t experts = std::max<int64_t>(op.getNumExperts(), 1);
  return experts * ceilDiv(op.getRows(), kBlockRows) * ceilDiv(maxRows, kBlockCallRows);
}

/// The option's tile, or by the grid (0): 8 x 8 tiles where the blocks give
/// every SM of a big GPU several 64-thread workgroups, 4 x 4 (256 threads)
/// where they are few.
TileShape tileShapeOf(stage::MatVecOp op, int64_t maxRows, const StageToGPUOptions &o) {
  if (o.prefillMatMatTile == 4 || o.prefillMatMatTile == 8)
    return TileShape(o.prefillMatMatTile);
  return TileShape(blocksOf(op, maxRows) >= kWideTileMinBlocks ? 8 : 4);
}
} // namespace

bool runsRowsTogether(stage::MatVecOp op, int64_t maxRows, const StageToGPUOptions &o) {
  // A grid of few blocks walks all the columns in few workgroups (latency
  // bound: embryo-1b's 16-row GDN gates as 1 block a 64 call rows); a
  // workgroup per call row and item spreads them.
  int64_t blocks = blocksOf(op, maxRows);
  const int64_t workgroupSize = tileShapeOf(op, maxRows, o).workgroupSize;
  // A target with less workgroup memory than a step takes runs the rows apart.
  int64_t bytes = kWorkgroupBytes;
  if (op.getExpert())
    bytes += kRoutedWorkgroupBytes + int64_t(sizeof(int32_t)) * workgroupSize;
  bool fits = o.maxWorkgroupMemoryBytes == 0 || o.maxWorkgroupMemoryBytes >= bytes;
  return o.prefillMatMatMinBlocks > 0 &&
         o.reduceWorkgroupSize >= workgroupSize && fits &&
         blocks >= o.prefillMatMatMinBlocks && !(op.getExpert() && op.getFold()) &&
         !op.getNorm() && !op.getUp() && !op.getSlerpUpdate() &&
         !op.getHiddenOut() && op.getSplitK() == 1 &&
         !op.getAccumulate() && op.getActivation() == stage::Activation::none;
}

KernelShape shapeOfRowsTogether(stage::MatVecOp op, int64_t maxRows, const StageToGPUOptions &o) {
  if (runsCooperatively(op, maxRows, o))
    return shapeOfCooperative(op, maxRows);
  return {tileShapeOf(op, maxRows, o).workgroupSize,
          std::min(blocksOf(op, maxRows), kMaxGridWorkgroups)};
}

Value asIndex(KernelBuilder &kb, Value i32) {
  return arith::IndexCastUIOp::create(kb.b, kb.loc, kb.b.getIndexType(), i32);
}

// Each thread counts a run of rows, the counts' prefix gives its ranks.
Value listRoutedRows(KernelBuilder &kb, Value expert, Value e, int64_t experts, Value count,
                     int64_t maxRows, Value firstCallRow, Value list, Value threadCounts,
                     int64_t workgroupSize) {
  const int64_t run = ceilDiv(maxRows, workgroupSize);
  Value thread = kb.threadId();
  Value first = kb.mul(thread, kb.index(run));
  auto isRouted = [&](int64_t i) {
    Value row = kb.add(first, kb.index(i));
    Value word = kb.load(expert, {kb.min(row, kb.index(maxRows - 1)), kb.index(0)});
    Value chosen = routedExpert(kb, word, experts);
    return arith::AndIOp::create(kb.b, kb.loc, kb.ult(row, count),
                                 arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq,
                                                       chosen, e));
  };
  auto asI32 = [&](Value index) {
    return arith::IndexCastOp::create(kb.b, kb.loc, kb.b.getI32Type(), index);
  };
  SmallVector<Value> routed;
  Value own = kb.index(0);
  for (int64_t i = 0; i < run; ++i) {
    routed.push_back(isRouted(i));
    own = kb.add(own, kb.select(routed.back(), kb.index(1), kb.index(0)));
  }
  // The previous block's readers are done with the list and the counts.
  kb.barrier();
  kb.store(asI32(own), threadCounts, {thread});
  kb.barrier();
  SmallVector<Value> sums = kb.forLoop(
      kb.index(0), kb.index(workgroupSize), kb.index(1), {kb.index(0), kb.index(0)},
      [&](Value t, ValueRange carried) -> SmallVector<Value> {
        Value c = asIndex(kb, kb.load(threadCounts, {t}));
        return {kb.add(carried[0], kb.select(kb.ult(t, thread), c, kb.index(0))),
                kb.add(carried[1], c)};
      });
  Value rank = sums[0];
  for (int64_t i = 0; i < run; ++i) {
    // Below firstCallRow the difference wraps past every unsigned bound.
    Value local = kb.sub(rank, firstCallRow);
    Value listed =
        arith::AndIOp::create(kb.b, kb.loc, routed[i], kb.ult(local, kb.index(kRoutedListRows)));
    kb.ifThen(listed, [&] { kb.store(asI32(kb.add(first, kb.index(i))), list, {local}); });
    rank = kb.add(rank, kb.select(routed[i], kb.index(1), kb.index(0)));
  }
  kb.barrier();
  return sums[1];
}

RoutedLists routedLists(stage::MatVecOp op, int64_t workgroupSize, KernelBuilder &kb) {
  if (!op.getExpert())
    return {};
  return {kb.workgroupBuffer(kRoutedListRows, kb.b.getI32Type()),
          kb.workgroupBuffer(workgroupSize, kb.b.getI32Type())};
}

ProductBlock productBlock(stage::MatVecOp op, Value block, Value count, int64_t maxRows,
                          int64_t blockRows, const RoutedLists &lists, int64_t workgroupSize,
                          KernelBuilder &kb) {
  const int64_t rows = op.getRows(), columns = op.getColumns();
  const int64_t callBlocks = ceilDiv(maxRows, kRoutedListRows);
  const int64_t rowBlocks = ceilDiv(rows, blockRows);
  ProductBlock pb;
  Value callBlock = kb.rem(block, kb.index(callBlocks));
  Value rowBlock = kb.rem(kb.div(block, kb.index(callBlocks)), kb.index(rowBlocks));
  pb.firstRow = kb.mul(rowBlock, kb.index(blockRows));
  pb.firstCallRow = kb.mul(callBlock, kb.index(kRoutedListRows));
  pb.rowBase = kb.index(0);
  pb.colBase = kb.index(0);
  Value first = pb.firstCallRow;
  pb.callRows = kb.sub(count, kb.select(kb.ult(first, count), first, count));
  Value expert = op.getExpert() ? kb.buffer(op.getExpert()) : Value();
  if (expert) {
    Value e = kb.div(block, kb.index(rowBlocks * callBlocks));
    pb.rowBase = kb.mul(e, kb.index(rows));
    pb.colBase = kb.mul(e, kb.index(columns));
    Value routed = listRoutedRows(kb, expert, e, op.getNumExperts(), count, maxRows, first,
                                  lists.list, lists.threadCounts, workgroupSize);
    pb.callRows = kb.sub(routed, kb.select(kb.ult(first, routed), first, routed));
  }
  Value callRows = pb.callRows, list = lists.list;
  pb.callRowAt = [&kb, callRows, first, count, list](Value local) -> std::pair<Value, Value> {
    Value inside = kb.ult(local, kb.min(callRows, kb.index(kRoutedListRows)));
    if (!list)
      return {kb.min(kb.add(first, local), kb.sub(count, kb.index(1))), inside};
    Value listed = kb.load(list, {kb.min(local, kb.index(kRoutedListRows - 1))});
    Value row = asIndex(kb, listed);
    return {kb.select(inside, row, kb.index(0)), inside};
  };
  return pb;
}

SmallVector<Value> blockActivations(stage::MatVecOp op, const ProductBlock &pb, Value column,
                                   int64_t rows, llvm::function_ref<Value(int64_t)> position,
                                   KernelBuilder &kb) {
  const int64_t columns = op.getColumns();
  Value input = kb.buffer(op.getInput());
  Value colScale = op.getColScale() ? kb.buffer(op.getColScale()) : Value();
  Value columnInside = kb.ult(column, kb.index(columns));
  Value safeColumn = kb.min(column, kb.index(columns - 1));
  Value scale = colScale ? kb.load(colScale, {kb.add(pb.colBase, safeColumn)}) : Value();
  SmallVector<Value> values;
  for (int64_t i = 0; i < rows; ++i) {
    auto [callRow, listed] = pb.callRowAt(position(i));
    Value inside = arith::AndIOp::create(kb.b, kb.loc, listed, columnInside);
    Value x = kb.load(input, {callRow, safeColumn});
    if (scale)
      x = kb.fmul(x, scale);
    values.push_back(kb.select(inside, x, kb.f32(0.0f)));
  }
  return values;
}

void buildRowsTogether(stage::MatVecOp op, Value count, int64_t maxRows, KernelBuilder &kb) {
  if (runsCooperatively(op, maxRows, kb.options()))
    return buildCooperativeRows(op, count, maxRows, kb);
  const bool q8 = op.getFormat() == stage::MatrixFormat::q8_2f;
  const int64_t rows = op.getRows(), columns = op.getColumns();
  const int64_t groups = memrefSize(op.getWeight(), 1);
  const int64_t groupColumns = q8 ? 16 : 8;
  const int64_t stepGroups = kStepColumns / groupColumns;
  const int64_t blocks = blocksOf(op, maxRows);
  Value weight = kb.buffer(op.getWeight());
  Value out = kb.buffer(op.getOut());
  Value rowScale = op.getRowScale() ? kb.buffer(op.getRowScale()) : Value();
  Value fold = op.getFold() ? kb.buffer(op.getFold()) : Value();
  auto vec4 = VectorType::get({kQuad}, kb.b.getF32Type());
  // Step column k: weights[k][row quad], activations[k][call-row quad].
  Value weights = kb.workgroupBuffer(kStepColumns * kRowQuads, vec4);
  Value activations = kb.workgroupBuffer(kStepColumns * kActivationStride, vec4);
  const TileShape shape = tileShapeOf(op, maxRows, kb.options());
  const int64_t workgroupSize = shape.workgroupSize, tile = shape.tile;
  Value thread = kb.threadId();
  // The thread's output tile (TileShape): at 4 x 4 a warp's 32 threads cover
  // every row quad of two call-row quads, at 8 x 8 eight row tiles of four.
  Value rowTile = kb.rem(thread, kb.index(shape.tiles));
  Value callTile = kb.div(thread, kb.index(shape.tiles));
  // Its u-th row quad (and call-row quad).
  auto tileQuad = [&](Value first, int64_t u) { return kb.add(first, kb.index(shape.tiles * u)); };
  // The weight group this thread decodes each step, for four rows (threads
  // past the block's groups decode none).
  const int64_t loaders = kRowQuads * stepGroups;
  assert(loaders <= workgroupSize && kStepColumns * kCallQuads % workgroupSize == 0 &&
         "a step's loads and copies cover the workgroup's threads");
  int64_t grid = kb.gridWorkgroups(std::min(blocks, kMaxGridWorkgroups));
  // Blocks past the grid are walked by the same workgroups in turn: uniform
  // loops and tests throughout (the barriers need every thread).
  const RoutedLists lists = routedLists(op, workgroupSize, kb);
  kb.forLoop(kb.workgroupId(), kb.index(blocks), kb.index(grid), [&](Value block) {
    const ProductBlock pb =
        productBlock(op, block, count, maxRows, kBlockRows, lists, workgroupSize, kb);
    Value firstRow = pb.firstRow, rowBase = pb.rowBase;
    const auto &callRowAt = pb.callRowAt;
    kb.ifThen(kb.ult(kb.index(0), pb.callRows), [&] {
      auto vec4i = VectorType::get({kQuad}, kb.b.getI32Type());
      Value isLoader = kb.ult(thread, kb.index(loaders));
      // A loader decodes one group of the step for a quad of weight rows.
      Value loadQuad = kb.rem(thread, kb.index(kRowQuads));
      Value loadGroup = kb.div(thread, kb.index(kRowQuads));
      // The loader's weight group of a step, and its quad's row j.
      auto groupOf = [&](Value step) {
        Value firstGroup = kb.mul(step, kb.index(stepGroups));
        return kb.add(firstGroup, loadGroup);
      };
      auto quadRow = [&](Value quad, int64_t j) {
        return kb.add(kb.mul(quad, kb.index(kQuad)), kb.index(j));
      };
      // The step column k and call-row quad of the thread's e-th activation copy
      // (a warp copies 8 columns of 16 call rows).
      auto copySlot = [&](int64_t e) -> std::pair<Value, Value> {
        Value element = kb.add(thread, kb.index(e));
        Value k = kb.add(kb.rem(element, kb.index(kCopyColumns)),
                         kb.mul(kb.div(element, kb.index(kCopyColumns * kCallQuads)),
                                kb.index(kCopyColumns)));
        Value quad = kb.rem(kb.div(element, kb.index(kCopyColumns)), kb.index(kCallQuads));
        return {k, quad};
      };
      // A step's loads from memory, its values in registers: the loader's
      // four weight rows' words of its group (zeros in other threads), then
      // the thread's activations (zeros past the call or the row).
      auto loadStep = [&](Value step) -> SmallVector<Value> {
        Value firstColumn = kb.mul(step, kb.index(kStepColumns));
        SmallVector<Value> raw = kb.ifThenElseValues(
            isLoader,
            [&] {
              Value safeGroup = kb.min(groupOf(step), kb.index(groups - 1));
              SmallVector<Value> words;
              for (int64_t j = 0; j < kQuad; ++j) {
                Value row = kb.min(kb.add(firstRow, quadRow(loadQuad, j)), kb.index(rows - 1));
                words.push_back(kb.load(weight, {kb.add(rowBase, row), safeGroup}));
              }
              return words;
            },
            [&] {
              Value zero = arith::ConstantOp::create(
                  kb.b, kb.loc, DenseElementsAttr::get(vec4i, kb.b.getI32IntegerAttr(0)));
              return SmallVector<Value>(kQuad, zero);
            });
        for (int64_t e = 0; e < kStepColumns * kCallQuads; e += workgroupSize) {
          auto [k, quad] = copySlot(e);
          Value column = kb.add(firstColumn, k);
          llvm::append_range(raw, blockActivations(op, pb, column, kQuad, [&](int64_t i) {
                               return quadRow(quad, i);
                             }, kb));
        }
        return raw;
      };
      // A step's registers into workgroup memory: the weights decoded (rows
      // past the matrix and groups past the row are zeros), four weight rows
      // to a vec4; the activations four call rows to a vec4.
      auto storeStep = [&](Value step, ValueRange raw) {
        kb.ifThen(isLoader, [&] {
          Value groupInside = kb.ult(groupOf(step), kb.index(groups));
          // columnValues[c][j]: column c of the group, weight row j of the quad.
          SmallVector<SmallVector<Value, kQuad>> columnValues(groupColumns);
          for (int64_t j = 0; j < kQuad; ++j) {
            Value row = kb.add(firstRow, quadRow(loadQuad, j));
            Value inside = arith::AndIOp::create(kb.b, kb.loc, kb.ult(row, kb.index(rows)),
                                                 groupInside);
            auto lanes = [&](Value vector, int64_t first, int64_t stride) {
              for (int64_t i = 0; i < 4; ++i) {
                Value v = vector::ExtractOp::create(kb.b, kb.loc, vector, i);
                columnValues[first + stride * i].push_back(kb.select(inside, v, kb.f32(0.0f)));
              }
            };
            if (q8) {
              for (int64_t byte = 0; byte < 4; ++byte)
                lanes(kb.decodeCodes(raw[j], byte), byte, 4);
            } else {
              auto [even, odd] = kb.decodeHalves(raw[j]);
              lanes(even, 0, 2);
              lanes(odd, 1, 2);
            }
          }
          for (int64_t c = 0; c < groupColumns; ++c) {
            Value k = kb.add(kb.mul(loadGroup, kb.index(groupColumns)), kb.index(c));
            Value quad = vector::FromElementsOp::create(kb.b, kb.loc, vec4, columnValues[c]);
            kb.store(quad, weights, {kb.add(kb.mul(k, kb.index(kRowQuads)), loadQuad)});
          }
        });
        for (int64_t e = 0, t = 0; e < kStepColumns * kCallQuads; e += workgroupSize, ++t) {
          auto [k, quad] = copySlot(e);
          ValueRange values = raw.slice(kQuad + t * kQuad, kQuad);
          Value quadValue = vector::FromElementsOp::create(kb.b, kb.loc, vec4, values);
          kb.store(quadValue, activations, {kb.add(kb.mul(k, kb.index(kActivationStride)), quad)});
        }
      };
      Value zero4 = arith::ConstantOp::create(
          kb.b, kb.loc, DenseElementsAttr::get(vec4, kb.b.getF32FloatAttr(0.0f)));
      const int64_t steps = ceilDiv(columns, kStepColumns);
      // Carried: the thread's accumulators (acc[i·quadsPerTile + u]: call row
      // i, the four weight rows of quad u), then the next step's loads, issued
      // before this step's products so they are in flight meanwhile.
      const int64_t accumulators = tile * shape.quadsPerTile;
      SmallVector<Value> init(accumulators, zero4);
      llvm::append_range(init, loadStep(kb.index(0)));
      SmallVector<Value> carriedOut = kb.forLoop(
          kb.index(0), kb.index(steps), kb.index(1), init,
          [&](Value step, ValueRange carried) -> SmallVector<Value> {
            storeStep(step, carried.drop_front(accumulators));
            kb.barrier();
            Value following = kb.min(kb.add(step, kb.index(1)), kb.index(steps - 1));
            SmallVector<Value> prefetched = loadStep(following);
            SmallVector<Value> next(carried.begin(), carried.begin() + accumulators);
            for (int64_t k = 0; k < kStepColumns; ++k) {
              SmallVector<Value> a, w;
              for (int64_t u = 0; u < shape.quadsPerTile; ++u) {
                a.push_back(kb.load(activations, {kb.add(kb.index(k * kActivationStride),
                                                         tileQuad(callTile, u))}));
                w.push_back(kb.load(weights,
                                    {kb.add(kb.index(k * kRowQuads), tileQuad(rowTile, u))}));
              }
              for (int64_t i = 0; i < tile; ++i) {
                Value ai = vector::ExtractOp::create(kb.b, kb.loc, a[i / kQuad], i % kQuad);
                Value splat = vector::BroadcastOp::create(kb.b, kb.loc, vec4, ai);
                for (int64_t u = 0; u < shape.quadsPerTile; ++u) {
                  Value &sum = next[i * shape.quadsPerTile + u];
                  sum = math::FmaOp::create(kb.b, kb.loc, splat, w[u], sum);
                }
              }
            }
            // The next step overwrites what this one read.
            kb.barrier();
            llvm::append_range(next, prefetched);
            return next;
          });
      ArrayRef<Value> acc = ArrayRef<Value>(carriedOut).take_front(accumulators);
      for (int64_t i = 0; i < tile; ++i)
        for (int64_t j = 0; j < tile; ++j) {
          auto [callRow, listed] =
              callRowAt(quadRow(tileQuad(callTile, i / kQuad), i % kQuad));
          Value row = kb.add(firstRow, quadRow(tileQuad(rowTile, j / kQuad), j % kQuad));
          Value stored = arith::AndIOp::create(kb.b, kb.loc, listed, kb.ult(row, kb.index(rows)));
          kb.ifThen(stored, [&] {
            Value v = vector::ExtractOp::create(
                kb.b, kb.loc, acc[i * shape.quadsPerTile + j / kQuad], j % kQuad);
            if (rowScale)
              v = kb.fmul(v, kb.load(rowScale, {kb.add(rowBase, row)}));
            if (fold)
              v = kb.fmul(v, kb.load(fold, {row}));
            kb.store(v, out, {callRow, row});
          });
        }
    });
  });
}

} // namespace kiln
