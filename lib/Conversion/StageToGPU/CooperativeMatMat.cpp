//===- CooperativeMatMat.cpp - @prefill's product on cooperative matrices -===//
//
// The blocked product of MatMat.cpp (Y[R x N] = X[R x K] W^T for a multi-row
// program's plain mat-vec) on the GPU's matrix units: gpu.subgroup_mma_*,
// which MLIR lowers to SPV_KHR_cooperative_matrix and the emitter rewrites to
// SPV_NV_cooperative_matrix (lib/Target/SPIRV/CooperativeMatrixNV.cpp).
//
// A workgroup of kSubgroups subgroups of kSubgroupSize lanes computes a block
// of kBlockCallRows call rows x kBlockRows weight rows, walking K in steps of
// kStepColumns. Each step its threads copy the block's weights into workgroup
// memory as f16 (a q8_2f code is an integer of at most 128 in magnitude, exact
// in f16) and its activations split in two f16 halves (CooperativeSplit):
// the products of both halves, accumulated in f32, keep x to about 21 bits,
// where f16(x) alone keeps 11 (the row-by-row decode's parity asks for 1e-3
// on the log-probabilities). Subgroup s owns weight rows 32s .. 32s + 31 of
// the block and all its call rows: 4 x 4 accumulators of 16 call rows x 8
// weight rows, twice with ScaledLo (the 16 x 8 x 16 f16 shape NVIDIA's matrix units offer;
// A, B and the accumulator are distinct types, as the NV extension needs).
// The next step's loads are issued before this step's products, as in
// MatMat.cpp. The accumulators leave through a small workgroup-memory tile a
// subgroup, each lane storing the outputs inside the call and the matrix.
//
// The subgroup layout is fixed (kSubgroups of kSubgroupSize), so the kernel
// records the subgroup size it needs (the plan's required_subgroup_size) and
// the runtime refuses a device that cannot run it.
//
//===----------------------------------------------------------------------===//
#include "Rows.h"

#include "kiln/Target/SPIRV/SPIRVEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln {

namespace {
constexpr int64_t kSubgroups = 4, kSubgroupSize = 32;
constexpr int64_t kWorkgroupSize = kSubgroups * kSubgroupSize;
/// The matrix units' shape: M call rows x N weight rows, K columns.
constexpr int64_t kTileM = 16, kTileN = 8, kTileK = 16;
constexpr int64_t kBlockCallRows = 64, kBlockRows = 128, kStepColumns = 32;
static_assert(kBlockCallRows == kRoutedListRows, "a routed block lists its call rows");
/// Weight rows a subgroup owns, and its accumulator tiles.
constexpr int64_t kSubgroupRows = kBlockRows / kSubgroups;
constexpr int64_t kTilesM = kBlockCallRows / kTileM, kTilesN = kSubgroupRows / kTileN;
/// Halves a row of a step takes in workgroup memory: the step and 8 of
/// padding (a row 80 bytes: 16-byte aligned tiles, rows in distinct banks).
constexpr int64_t kRowStride = kStepColumns + 8;
/// A thread's activation copies a step (a warp copies one call row's columns).
constexpr int64_t kActivationCopies = kBlockCallRows * kStepColumns / kWorkgroupSize;
static_assert(kWorkgroupSize % kStepColumns == 0, "a warp copies whole rows of a step");
constexpr int64_t kCopyRowsPerPass = kWorkgroupSize / kStepColumns;
/// ScaledLo's factor on the lo half (2^11: f16's significand).
constexpr float kLoScale = 2048.0f;
/// Workgroup memory: two activation halves, the weights, a tile a subgroup;
/// a routed expert's block also lists its call rows and each thread's count.
constexpr int64_t kWorkgroupBytes = 2 * (2 * kBlockCallRows + kBlockRows) * kRowStride +
                                    2 * 4 * kSubgroups * kTileM * kTileN;
constexpr int64_t kRoutedWorkgroupBytes = 4 * (kBlockCallRows + kWorkgroupSize);

/// A product's blocks: (expert,) weight-row block, call-row block.
int64_t blocksOf(stage::MatVecOp op, int64_t maxRows) {
  int64_t experts = std::max<int64_t>(op.getNumExperts(), 1);
  return experts * ceilDiv(op.getRows(), kBlockRows) * ceilDiv(maxRows, kBlockCallRows);
}
} // namespace

bool runsCooperatively(stage::MatVecOp op, int64_t maxRows, const StageToGPUOptions &o) {
  int64_t bytes = kWorkgroupBytes + (op.getExpert() ? kRoutedWorkgroupBytes : 0);
  bool fits = o.maxWorkgroupMemoryBytes == 0 || o.maxWorkgroupMemoryBytes >= bytes;
  return o.prefillMatMatCooperative && fits &&
         o.maxWorkgroupSize >= kWorkgroupSize && runsRowsTogether(op, maxRows, o);
}

KernelShape shapeOfCooperative(stage::MatVecOp op, int64_t maxRows) {
  return {kWorkgroupSize, std::min(blocksOf(op, maxRows), kMaxGridWorkgroups)};
}

void buildCooperativeRows(stage::MatVecOp op, Value count, int64_t maxRows, KernelBuilder &kb) {
  kb.requireSubgroupSize(kSubgroupSize, /*cooperativeMatrices=*/true);
  const bool q8 = op.getFormat() == stage::MatrixFormat::q8_2f;
  const int64_t rows = op.getRows(), columns = op.getColumns();
  const int64_t groups = memrefSize(op.getWeight(), 1);
  const int64_t groupColumns = q8 ? 16 : 8;
  const int64_t stepGroups = kStepColumns / groupColumns;
  const int64_t blocks = blocksOf(op, maxRows);
  // A thread's weight groups a step: the block's rows x the step's groups.
  const int64_t weightLoads = kBlockRows * stepGroups / kWorkgroupSize;
  static_assert(kBlockRows * 2 % kWorkgroupSize == 0, "the weight copies cover the threads");
  Value weight = kb.buffer(op.getWeight());
  Value out = kb.buffer(op.getOut());
  Value rowScale = op.getRowScale() ? kb.buffer(op.getRowScale()) : Value();
  Value fold = op.getFold() ? kb.buffer(op.getFold()) : Value();
  Type f16 = kb.b.getF16Type(), f32 = kb.b.getF32Type();
  Value hiTile = kb.workgroupBuffer(kBlockCallRows * kRowStride, f16);
  Value loTile = kb.workgroupBuffer(kBlockCallRows * kRowStride, f16);
  Value weightTile = kb.workgroupBuffer(kBlockRows * kRowStride, f16);
  // CooperativeSplit: the lo half's products get accumulators of their own
  // (scaled), and a second staging tile a subgroup.
  const auto split = kb.options().prefillMatMatCooperativeSplit;
  const bool ownLo = split == CooperativeSplit::ScaledLo;
  const int64_t halves = split == CooperativeSplit::HiOnly ? 1 : 2;
  const int64_t tileElements = kTileM * kTileN;
  Value staging = kb.workgroupBuffer(kSubgroups * tileElements * (ownLo ? 2 : 1), f32);
  auto aType = gpu::MMAMatrixType::get({kTileM, kTileK}, f16, "AOp");
  auto bType = gpu::MMAMatrixType::get({kTileK, kTileN}, f16, "BOp");
  auto cType = gpu::MMAMatrixType::get({kTileM, kTileN}, f32, "COp");
  Value thread = kb.threadId();
  Value subgroup = kb.subgroupId(), lane = kb.laneId();
  // The thread's weight copies: group thread % stepGroups of rows
  // thread / stepGroups + (threads / stepGroups)·i.
  Value loadGroup = kb.rem(thread, kb.index(stepGroups));
  Value loadRow = kb.div(thread, kb.index(stepGroups));
  const int64_t rowsPerPass = kWorkgroupSize / stepGroups;
  // Its activation copies: column thread % 32 of call rows thread / 32 + 4·i.
  Value copyColumn = kb.rem(thread, kb.index(kStepColumns));
  Value copyRow = kb.div(thread, kb.index(kStepColumns));
  int64_t grid = kb.gridWorkgroups(std::min(blocks, kMaxGridWorkgroups));
  auto toHalf = [&](Value v) { return arith::TruncFOp::create(kb.b, kb.loc, f16, v); };
  auto widen = [&](Value v) { return arith::ExtFOp::create(kb.b, kb.loc, f32, v); };
  const RoutedLists lists = routedLists(op, kWorkgroupSize, kb);
  kb.forLoop(kb.workgroupId(), kb.index(blocks), kb.index(grid), [&](Value block) {
    const ProductBlock pb =
        productBlock(op, block, count, maxRows, kBlockRows, lists, kWorkgroupSize, kb);
    Value firstRow = pb.firstRow, rowBase = pb.rowBase;
    const auto &callRowAt = pb.callRowAt;
    kb.ifThen(kb.ult(kb.index(0), pb.callRows), [&] {
      // A step's loads from memory, in registers: the thread's weight groups
      // (rows past the matrix and groups past the row read a clamped one,
      // zeroed when stored), then its activations (zeros past the call or
      // the row).
      auto loadStep = [&](Value step) -> SmallVector<Value> {
        SmallVector<Value> raw;
        Value group = kb.add(kb.mul(step, kb.index(stepGroups)), loadGroup);
        Value safeGroup = kb.min(group, kb.index(groups - 1));
        for (int64_t i = 0; i < weightLoads; ++i) {
          Value row = kb.add(firstRow, kb.add(loadRow, kb.index(rowsPerPass * i)));
          raw.push_back(
              kb.load(weight, {kb.add(rowBase, kb.min(row, kb.index(rows - 1))), safeGroup}));
        }
        Value column = kb.add(kb.mul(step, kb.index(kStepColumns)), copyColumn);
        llvm::append_range(raw, blockActivations(op, pb, column, kActivationCopies, [&](int64_t i) {
                             return kb.add(copyRow, kb.index(kCopyRowsPerPass * i));
                           }, kb));
        return raw;
      };
      // A step's registers into workgroup memory, as f16.
      auto storeStep = [&](Value step, ValueRange raw) {
        Value group = kb.add(kb.mul(step, kb.index(stepGroups)), loadGroup);
        Value groupInside = kb.ult(group, kb.index(groups));
        for (int64_t i = 0; i < weightLoads; ++i) {
          Value local = kb.add(loadRow, kb.index(rowsPerPass * i));
          Value inside = arith::AndIOp::create(
              kb.b, kb.loc, kb.ult(kb.add(firstRow, local), kb.index(rows)), groupInside);
          // The group's columns in order (MatMat.cpp's decoders give them
          // interleaved: even and odd halves, or byte k of each word).
          SmallVector<Value> values(groupColumns);
          auto lanes = [&](Value vector, int64_t first, int64_t stride) {
            for (int64_t e = 0; e < 4; ++e)
              values[first + stride * e] = vector::ExtractOp::create(kb.b, kb.loc, vector, e);
          };
          if (q8) {
            for (int64_t byte = 0; byte < 4; ++byte)
              lanes(kb.decodeCodes(raw[i], byte), byte, 4);
          } else {
            auto [even, odd] = kb.decodeHalves(raw[i]);
            lanes(even, 0, 2);
            lanes(odd, 1, 2);
          }
          Value base = kb.add(kb.mul(local, kb.index(kRowStride)),
                              kb.mul(loadGroup, kb.index(groupColumns)));
          for (int64_t c = 0; c < groupColumns; ++c)
            kb.store(toHalf(kb.select(inside, values[c], kb.f32(0.0f))), weightTile,
                     {kb.add(base, kb.index(c))});
        }
        for (int64_t i = 0; i < kActivationCopies; ++i) {
          Value x = raw[weightLoads + i];
          Value at = kb.add(kb.mul(kb.add(copyRow, kb.index(kCopyRowsPerPass * i)),
                                   kb.index(kRowStride)),
                            copyColumn);
          if (split == CooperativeSplit::HiOnly) {
            kb.store(toHalf(x), hiTile, {at});
            continue;
          }
          if (split == CooperativeSplit::HiLo) {
            Value hi = toHalf(x);
            kb.store(hi, hiTile, {at});
            Value wide = widen(hi);
            Value rest = kb.fsub(x, wide);
            Value lo = toHalf(rest);
            kb.store(lo, loTile, {at});
            continue;
          }
          // ScaledLo: hi keeps x's sign, exponent and top 10 mantissa bits
          // (a mask: exact in f16 within its range, no rounding to undo);
          // lo = x - hi is exact in f32 and below 2^-10 |x|, so 2^11 lo
          // stays a normal f16 where x does.
          // One op a statement: the IR's order must not depend on the order a
          // compiler evaluates call arguments in.
          auto i32 = kb.b.getI32Type();
          Value bits = arith::BitcastOp::create(kb.b, kb.loc, i32, x);
          Value mask = arith::ConstantOp::create(kb.b, kb.loc, kb.b.getI32IntegerAttr(~0x1fff));
          Value masked = arith::AndIOp::create(kb.b, kb.loc, bits, mask);
          Value hi = arith::BitcastOp::create(kb.b, kb.loc, f32, masked);
          Value hiHalf = toHalf(hi);
          kb.store(hiHalf, hiTile, {at});
          Value rest = kb.fsub(x, hi);
          Value scale = kb.f32(kLoScale);
          Value scaled = kb.fmul(rest, scale);
          Value loHalf = toHalf(scaled);
          kb.store(loHalf, loTile, {at});
        }
      };
      auto leading = kb.b.getIndexAttr(kRowStride);
      auto loadA = [&](Value tile, int64_t m, int64_t k) -> Value {
        return gpu::SubgroupMmaLoadMatrixOp::create(
            kb.b, kb.loc, aType, tile, ValueRange{kb.index(m * kTileM * kRowStride + k * kTileK)},
            leading, /*transpose=*/UnitAttr());
      };
      // B[k][n] = W[n][k]: the weight rows are B's columns.
      Value subgroupRow = kb.mul(subgroup, kb.index(kSubgroupRows));
      Value subgroupFirst = kb.mul(subgroupRow, kb.index(kRowStride));
      auto loadB = [&](int64_t n, int64_t k) -> Value {
        Value at = kb.add(subgroupFirst, kb.index(n * kTileN * kRowStride + k * kTileK));
        return gpu::SubgroupMmaLoadMatrixOp::create(kb.b, kb.loc, bType, weightTile,
                                                    ValueRange{at}, leading,
                                                    kb.b.getUnitAttr());
      };
      Value zero = gpu::SubgroupMmaConstantMatrixOp::create(kb.b, kb.loc, cType, kb.f32(0.0f));
      const int64_t steps = ceilDiv(columns, kStepColumns);
      const int64_t tiles = kTilesM * kTilesN;
      const int64_t accumulators = tiles * (ownLo ? 2 : 1);
      SmallVector<Value> init(accumulators, zero);
      llvm::append_range(init, loadStep(kb.index(0)));
      SmallVector<Value> carriedOut = kb.forLoop(
          kb.index(0), kb.index(steps), kb.index(1), init,
          [&](Value step, ValueRange carried) -> SmallVector<Value> {
            storeStep(step, carried.drop_front(accumulators));
            kb.barrier();
            Value following = kb.min(kb.add(step, kb.index(1)), kb.index(steps - 1));
            SmallVector<Value> prefetched = loadStep(following);
            SmallVector<Value> next(carried.begin(), carried.begin() + accumulators);
            for (int64_t k = 0; k < kStepColumns / kTileK; ++k) {
              SmallVector<Value> b;
              for (int64_t n = 0; n < kTilesN; ++n)
                b.push_back(loadB(n, k));
              for (int64_t h = 0; h < halves; ++h)
                for (int64_t m = 0; m < kTilesM; ++m) {
                  Value a = loadA(h == 0 ? hiTile : loTile, m, k);
                  for (int64_t n = 0; n < kTilesN; ++n) {
                    Value &acc = next[(ownLo && h == 1 ? tiles : 0) + m * kTilesN + n];
                    acc = gpu::SubgroupMmaComputeOp::create(kb.b, kb.loc, cType, a, b[n], acc,
                                                            UnitAttr(), UnitAttr());
                  }
                }
            }
            // The next step overwrites what this one read.
            kb.barrier();
            llvm::append_range(next, prefetched);
            return next;
          });
      // Each accumulator through the subgroup's tile of workgroup memory
      // (ScaledLo: its lo beside it): lane l stores elements l, l + 32, ...
      // of its 16 x 8.
      Value tileBase = kb.mul(subgroup, kb.index(tileElements * (ownLo ? 2 : 1)));
      Value loBase = kb.add(tileBase, kb.index(tileElements));
      for (int64_t m = 0; m < kTilesM; ++m)
        for (int64_t n = 0; n < kTilesN; ++n) {
          auto stage = [&](Value acc, Value at) {
            gpu::SubgroupMmaStoreMatrixOp::create(kb.b, kb.loc, acc, staging, ValueRange{at},
                                                  kb.b.getIndexAttr(kTileN), UnitAttr());
          };
          stage(carriedOut[m * kTilesN + n], tileBase);
          if (ownLo)
            stage(carriedOut[tiles + m * kTilesN + n], loBase);
          kb.barrier();
          for (int64_t e = 0; e < kTileM * kTileN; e += kSubgroupSize) {
            Value element = kb.add(lane, kb.index(e));
            auto [callRow, listed] =
                callRowAt(kb.add(kb.index(m * kTileM), kb.div(element, kb.index(kTileN))));
            Value row = kb.add(kb.add(firstRow, subgroupRow),
                               kb.add(kb.index(n * kTileN), kb.rem(element, kb.index(kTileN))));
            Value stored = arith::AndIOp::create(kb.b, kb.loc, listed, kb.ult(row, kb.index(rows)));
            kb.ifThen(stored, [&] {
              Value v = kb.load(staging, {kb.add(tileBase, element)});
              if (ownLo) {
                Value lo = kb.load(staging, {kb.add(loBase, element)});
                Value unscale = kb.f32(1.0f / kLoScale);
                Value back = kb.fmul(lo, unscale);
                v = kb.fadd(v, back);
              }
              if (rowScale)
                v = kb.fmul(v, kb.load(rowScale, {kb.add(rowBase, row)}));
              if (fold)
                v = kb.fmul(v, kb.load(fold, {row}));
              kb.store(v, out, {callRow, row});
            });
          }
          // The next tile overwrites what the lanes read.
          kb.barrier();
        }
    });
  });
}

} // namespace kiln
