//===- KernelBuilder.h - Small helpers to write GPU kernel bodies -*- C++ -*-===//
//
// Each stage kernel is written against this layer: thread ids, guarded and
// strided loops, packed f16 / q8 row dots, workgroup reductions. It keeps the
// per-stage files short and puts the tricky parts (barriers, half decoding)
// in one place.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CONVERSION_STAGETOGPU_KERNELBUILDER_H
#define KILN_LIB_CONVERSION_STAGETOGPU_KERNELBUILDER_H

#include "kiln/Conversion/StageToGPU/StageToGPU.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>

namespace kiln {

/// The launch shape of one kernel: a 1-D grid of 1-D workgroups.
struct KernelShape {
  int64_t workgroupSize = 64;
  int64_t workgroups = 1;
};

enum class ReduceKind { Add, Max };

/// One element of a row a thread keeps in registers (KernelBuilder::held):
/// `index` may lie past the row when `inRange` is set; `safe` is the index
/// clamped into the row, for loads.
struct HeldElement {
  mlir::Value index;
  mlir::Value safe;
  /// Null when the element always lies in the row.
  mlir::Value inRange;
};

/// Elements a thread may hold of one row (KernelBuilder::held): beyond that
/// the straight-line code grows past what it saves, and kernels walk the row
/// with a strided loop instead.
constexpr int64_t kMaxHeldPerThread = 16;

class KernelBuilder {
public:
  KernelBuilder(mlir::OpBuilder &builder, mlir::Location loc,
                mlir::gpu::GPUFuncOp func, const mlir::IRMapping &buffers,
                int64_t workgroupSize, const StageToGPUOptions &options)
      : b(builder), loc(loc), func(func), buffers(buffers),
        workgroupSize(workgroupSize), subgroupReduce(options.subgroupReduce),
        kernelOptions(options) {}

  mlir::OpBuilder &b;
  mlir::Location loc;

  /// The kernel argument bound to a stage operand.
  mlir::Value buffer(mlir::Value stageOperand) const {
    return buffers.lookup(stageOperand);
  }
  /// The vector<4xf32> view of a stage operand's buffer (a second binding of
  /// the same range, StageToGPUOptions::vectorActivations), or null where the
  /// kernel has none.
  mlir::Value vectorView(mlir::Value stageOperand) const {
    return views ? views->lookupOrNull(stageOperand) : mlir::Value();
  }
  void setVectorViews(const mlir::IRMapping *viewArgs) { views = viewArgs; }
  int64_t getWorkgroupSize() const { return workgroupSize; }
  /// How kernels are shaped (the pass's options).
  const StageToGPUOptions &options() const { return kernelOptions; }

  // Constants.
  mlir::Value index(int64_t value);
  mlir::Value i32(int32_t value);
  mlir::Value f32(float value);
  /// `value` as a constant of `like`'s type: a splat where it is a vector.
  mlir::Value f32Like(float value, mlir::Value like);
  /// The f32 `scalar` broadcast to `like`'s type where that is a vector;
  /// `scalar` itself otherwise.
  mlir::Value splatLike(mlir::Value scalar, mlir::Value like);

  // Thread coordinates (index typed).
  mlir::Value threadId();
  mlir::Value workgroupId();
  /// workgroupId * workgroupSize + threadId.
  mlir::Value globalId();
  /// A fused kernel (docs/fusion.md) runs a stage on a range of its
  /// workgroups, or loops over the stage's workgroups inside one: while set,
  /// workgroupId() is `id` and gridWorkgroups() is `count`. Null restores.
  void setVirtualWorkgroup(mlir::Value id, int64_t count) {
    virtualWorkgroupId = id;
    virtualWorkgroups = count;
  }
  /// Workgroups the stage runs on: `launched` (its own grid) unless a fused
  /// kernel set a virtual workgroup range.
  /// A per-thread stage run for one element by one thread (a mat-vec's row
  /// epilogue): globalId() returns `id` until reset with a null Value.
  void setVirtualGlobalId(mlir::Value id) { virtualGlobalId = id; }
  int64_t gridWorkgroups(int64_t launched) const {
    return virtualWorkgroupId ? virtualWorkgroups : launched;
  }
  /// A multi-row program's kernel (Rows.h): while `row` is set, a load or
  /// store of one of `rowBuffers` (kernel arguments holding a row per call
  /// row) indexes that row first, and params words 0 and 1 read as the row's
  /// token and position. Null restores.
  void setRow(mlir::Value row) { currentRow = row; }
  void setRowBuffers(const llvm::DenseSet<mlir::Value> *buffers) { rowBuffers = buffers; }

  // Index arithmetic.
  mlir::Value add(mlir::Value a, mlir::Value c);
  mlir::Value sub(mlir::Value a, mlir::Value c);
  mlir::Value mul(mlir::Value a, mlir::Value c);
  mlir::Value div(mlir::Value a, mlir::Value c);
  mlir::Value rem(mlir::Value a, mlir::Value c);
  mlir::Value min(mlir::Value a, mlir::Value c);
  mlir::Value ult(mlir::Value a, mlir::Value c);
  mlir::Value uge(mlir::Value a, mlir::Value c);

  // Float arithmetic.
  mlir::Value fadd(mlir::Value a, mlir::Value c);
  mlir::Value fsub(mlir::Value a, mlir::Value c);
  mlir::Value fmul(mlir::Value a, mlir::Value c);
  mlir::Value fdiv(mlir::Value a, mlir::Value c);
  mlir::Value fmax(mlir::Value a, mlir::Value c);
  mlir::Value exp(mlir::Value a);
  mlir::Value log(mlir::Value a);
  mlir::Value sqrt(mlir::Value a);
  mlir::Value rsqrt(mlir::Value a);
  mlir::Value sigmoid(mlir::Value a);
  mlir::Value silu(mlir::Value a);
  mlir::Value softplus(mlir::Value a);
  mlir::Value select(mlir::Value cond, mlir::Value a, mlir::Value c);
  mlir::Value indexToF32(mlir::Value a);

  // Memory.
  mlir::Value load(mlir::Value memref, mlir::ValueRange indices);
  void store(mlir::Value value, mlir::Value memref, mlir::ValueRange indices);
  /// params[word] as an index (token, position).
  mlir::Value paramIndex(mlir::Value params, int64_t word);
  /// params[word] reinterpreted as f32 bits.
  mlir::Value paramF32(mlir::Value params, int64_t word);

  // Control flow.
  void ifThen(mlir::Value cond, const std::function<void()> &then);
  void ifThenElse(mlir::Value cond, const std::function<void()> &then,
                  const std::function<void()> &otherwise);
  /// The values `then` or `otherwise` returns (of the same types), as one
  /// scf.if with results.
  llvm::SmallVector<mlir::Value>
  ifThenElseValues(mlir::Value cond, const std::function<llvm::SmallVector<mlir::Value>()> &then,
             const std::function<llvm::SmallVector<mlir::Value>()> &otherwise);
  void forLoop(mlir::Value lb, mlir::Value ub, mlir::Value step,
               const std::function<void(mlir::Value)> &body);
  /// A loop carrying values; body returns the next values. A loop that runs
  /// zero times returns `init` (guarded: see the definition).
  llvm::SmallVector<mlir::Value>
  forLoop(mlir::Value lb, mlir::Value ub, mlir::Value step,
          mlir::ValueRange init,
          const std::function<llvm::SmallVector<mlir::Value>(
              mlir::Value, mlir::ValueRange)> &body);
  /// for (i = threadId; i < count; i += workgroupSize): the workgroup walks
  /// a row of any length.
  void strided(mlir::Value count, const std::function<void(mlir::Value)> &body);
  mlir::Value strided(mlir::Value count, mlir::Value init,
                      const std::function<mlir::Value(mlir::Value, mlir::Value)> &body);

  /// The elements i = threadId + k·W (k < ceil(size / W)) of a row of
  /// `size`, for a kernel that keeps its values in registers across a
  /// workgroup reduction (a norm: sum of squares, then scale): each pass is
  /// straight-line code whose loads are all in flight together, where a
  /// strided loop waits for one load before the next. Empty when the row is
  /// longer than kMaxHeldPerThread · W: walk it with strided() then.
  llvm::SmallVector<HeldElement> held(int64_t size);
  /// The element at `index` of a row of `size` (held(), stridedTrips());
  /// range-checked and clamped where `mayPassEnd`.
  HeldElement rowElement(mlir::Value index, int64_t size, bool mayPassEnd);
  /// memref[leading..., e.safe], 0 for an element past the row.
  mlir::Value loadHeld(mlir::Value memref, const HeldElement &e,
                       mlir::ValueRange leading = {});
  /// memref[leading..., e.index] = value, only for an element in the row.
  void storeHeld(mlir::Value value, mlir::Value memref, const HeldElement &e,
                 mlir::ValueRange leading = {});
  /// Σ values, pairwise (no chain of dependent adds).
  mlir::Value sum(llvm::ArrayRef<mlir::Value> values);
  /// A walk over a row of any length with held()'s elements, `unroll` of a
  /// thread's elements a trip: load(e) for each element of the trip first,
  /// then fold(carried, loaded, e) in element order, so a trip's loads are
  /// in flight together where strided() waits for each (a slerp in a
  /// 64-thread mat-vec workgroup walks 2,048 columns: 32 dependent trips).
  /// Elements of the last trip past the row have `inRange` set, as held()'s.
  llvm::SmallVector<mlir::Value> stridedTrips(
      int64_t size, int64_t unroll, mlir::ValueRange init,
      const std::function<llvm::SmallVector<mlir::Value>(const HeldElement &)> &load,
      const std::function<llvm::SmallVector<mlir::Value>(
          mlir::ValueRange, llvm::ArrayRef<mlir::Value>, const HeldElement &)> &fold);

  /// Σ_d a(d)·c(d) over d < length, in four interleaved partial sums when
  /// length % 4 == 0 (a dot's loads in flight together instead of each
  /// waiting for the add before it; 16 a loop trip when length % 16 == 0),
  /// else in index order.
  mlir::Value dot(int64_t length, const std::function<mlir::Value(mlir::Value)> &a,
                  const std::function<mlir::Value(mlir::Value)> &c);
  /// init + Σ term(u) over u = first, first + step, ... < end, added in that
  /// order, `unroll` terms a trip: a trip's loads are in flight together
  /// where a plain loop waits for each (an attention lane's walk over keys).
  mlir::Value sumSteps(mlir::Value first, mlir::Value end, mlir::Value step,
                       mlir::Value init, int64_t unroll,
                       const std::function<mlir::Value(mlir::Value)> &term);
  /// fold(acc, value(i), i) over i = threadId, threadId + W, ... < count, in
  /// that order, `unroll` values a trip loaded before they are folded (a
  /// one-workgroup walk over a vocabulary: its loads in flight together),
  /// then the rest one a trip.
  llvm::SmallVector<mlir::Value> stridedLoadsFirst(
      int64_t count, int64_t unroll, mlir::ValueRange init,
      const std::function<mlir::Value(mlir::Value)> &value,
      const std::function<llvm::SmallVector<mlir::Value>(mlir::ValueRange, mlir::Value,
                                                         mlir::Value)> &fold);
  /// Workgroup-wide reduction of one f32 per thread; every thread gets the
  /// result. Must be reached by all threads of the workgroup.
  mlir::Value reduce(mlir::Value partial, ReduceKind kind);
  /// Workgroup-wide reductions of several f32 per thread at once (one
  /// barrier round for all of them); every thread gets every result. Must be
  /// reached by all threads of the workgroup.
  llvm::SmallVector<mlir::Value> reduceMany(mlir::ValueRange partials,
                                            ReduceKind kind = ReduceKind::Add);
  /// values[t] in thread t < values.size() (thread r of a row item takes row
  /// r's total), values[0] elsewhere.
  mlir::Value pickByThread(llvm::ArrayRef<mlir::Value> values);
  /// values[id] where id < values.size(), values[0] elsewhere.
  mlir::Value pickBy(mlir::Value id, llvm::ArrayRef<mlir::Value> values);

  // Subgroups (sizes read at run time, never assumed).
  mlir::Value laneId();
  mlir::Value subgroupSize();
  mlir::Value subgroupId();
  mlir::Value numSubgroups();
  /// Sums of several f32 over this subgroup alone (no barrier, no workgroup
  /// memory); every lane gets every result. Needs subgroup arithmetic.
  llvm::SmallVector<mlir::Value> subgroupSumMany(mlir::ValueRange partials);
  /// `value` of the lane whose subgroup id differs from this one's by `mask`
  /// (an exclusive or: SPIR-V GroupNonUniformShuffleXor). Needs subgroup
  /// shuffles, and the partner within the subgroup.
  mlir::Value shuffleXor(mlir::Value value, int32_t mask);
  void barrier();
  /// The kernel is only correct with subgroups of `size` lanes (the plan's
  /// required_subgroup_size); with `cooperativeMatrices` it also uses
  /// gpu.subgroup_mma_* (the emitter lowers it for them: SPIRVEmitter.h).
  void requireSubgroupSize(int64_t size, bool cooperativeMatrices);
  /// A workgroup memory buffer of `size` f32 (a workgroup attribution).
  mlir::Value workgroupBuffer(int64_t size);
  /// `size` elements of `element` (a vector type: one load or store a vector).
  mlir::Value workgroupBuffer(int64_t size, mlir::Type element);

  // Packed matrices (rows of 16-byte groups; stridedRowDots walks them).
  /// The activations one 16-byte group of a packed row multiplies (group
  /// index `group`; `input(c)` is the activation at column c, asked only for
  /// columns < `columns`): f16, (even, odd) columns as two vector<4xf32>; q8_2f,
  /// four vector<4xf32>, vector k holding columns k, 4 + k, 8 + k, 12 + k (byte
  /// k of each word). Computed once, dotted with the
  /// same group of several rows by packedGroupDotInputs.
  llvm::SmallVector<mlir::Value>
  packedGroupInputs(mlir::Value group, stage::MatrixFormat format, int64_t columns,
                    const std::function<mlir::Value(mlir::Value)> &input);
  /// The same from `quad(q)`, columns 4q .. 4q + 3 as one vector<4xf32>:
  /// two (f16) or four (q8_2f) vector loads instead of 8 or 16 scalar ones,
  /// rearranged in registers. The group must lie within the columns.
  llvm::SmallVector<mlir::Value>
  packedGroupQuads(mlir::Value group, stage::MatrixFormat format,
                   const std::function<mlir::Value(mlir::Value)> &quad);
  /// `sum` plus the products of one loaded group `words` with its
  /// activations `inputs` (packedGroupInputs): four lane sums where `sum` is
  /// a vector<4xf32>, one multiply-add chain where it is an f32.
  mlir::Value packedGroupDotInputs(mlir::Value words, mlir::ValueRange inputs,
                                   mlir::Value sum, stage::MatrixFormat format);
  /// Decodes the 8 halves of a vector<4xi32> into (even, odd) vector<4xf32>:
  /// even = halves 0,2,4,6 (low 16 bits of each word), odd = 1,3,5,7.
  std::pair<mlir::Value, mlir::Value> decodeHalves(mlir::Value words);
  /// Byte `byte` (0..3, little-endian) of each of a group's four i32 words,
  /// as int8 codes in a vector<4xf32>: the codes of columns byte, 4 + byte,
  /// 8 + byte, 12 + byte.
  mlir::Value decodeCodes(mlir::Value words, int64_t byte);

private:
  mlir::Value reduceScratch(int64_t count);

  mlir::gpu::GPUFuncOp func;
  const mlir::IRMapping &buffers;
  const mlir::IRMapping *views = nullptr;
  int64_t workgroupSize;
  bool subgroupReduce;
  const StageToGPUOptions &kernelOptions;
  mlir::Value scratch;
  int64_t scratchCount = 0;
  mlir::Value virtualWorkgroupId;
  int64_t virtualWorkgroups = 0;
  mlir::Value virtualGlobalId;
  mlir::Value currentRow;
  const llvm::DenseSet<mlir::Value> *rowBuffers = nullptr;
  /// `indices` with the current row first where `memref` holds rows.
  llvm::SmallVector<mlir::Value> rowIndices(mlir::Value memref, mlir::ValueRange indices) const;
};

// One entry per stage kind: the launch shape and the body builder. Each lives
// in the file named after its stage.
KernelShape shapeOf(stage::EmbedGatherOp op, const StageToGPUOptions &o);
void buildKernel(stage::EmbedGatherOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::RMSNormOp op, const StageToGPUOptions &o);
void buildKernel(stage::RMSNormOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::MatVecOp op, const StageToGPUOptions &o);
void buildKernel(stage::MatVecOp op, KernelBuilder &kb);
/// Several mat-vecs of the same rows (split_k 1) in one kernel, a workgroup
/// per row computing each of them, then `epilogue(row)` run by the thread
/// that stored the row's values (the `row_epilogue` fused form).
void buildRowEpilogueKernel(llvm::ArrayRef<stage::MatVecOp> ops, KernelBuilder &kb,
                            const std::function<void(mlir::Value row)> &epilogue);
/// The `last_workgroup` form's hand-over (LastWorkgroup.cpp): called after
/// the lead stage, runs `tail` in the workgroup that counts last on `op`'s
/// counter, with every workgroup's writes visible to it.
KernelShape shapeOf(stage::LastWorkgroupOp op, const StageToGPUOptions &o);
void buildLastWorkgroupTail(stage::LastWorkgroupOp op, KernelBuilder &kb,
                            const std::function<void()> &tail);
/// The hand-over itself: each workgroup releases its writes and adds one to
/// `counter[word]`; the one whose add makes it `expected` (an i32) resets
/// the word and runs `tail` (uniform in that workgroup) after acquiring
/// every workgroup's writes. A counter word per group of workgroups lets
/// each group have its own last (split_keys: a word per head).
void runInLastWorkgroup(KernelBuilder &kb, mlir::Value counter, mlir::Value word,
                        mlir::Value expected, const std::function<void()> &tail);
/// 16-byte loads a mat-vec thread keeps in flight (rows x unrolled groups).
constexpr int64_t kMatVecLoadsInFlight = 8;
/// Whether mat-vec items go to subgroups (StageToGPUOptions::
/// matvecSubgroupItems, where the target has subgroup arithmetic).
bool subgroupItems(const StageToGPUOptions &o);
/// The expert a routed mat-vec takes from stage.router's i32 `word`, clamped
/// to the last of `experts` so that a stray word stays in bounds.
mlir::Value routedExpert(KernelBuilder &kb, mlir::Value word, int64_t experts);
/// Threads of a mat-vec workgroup whose subgroups take items (at most the
/// reduce workgroup size).
constexpr int64_t kSubgroupItemsWorkgroupSize = 128;
/// The subgroup size a subgroup-item grid is sized for. Only the grid
/// depends on it: the kernel reads the real size and count, and walks
/// whatever items its grid leaves.
constexpr int64_t kPlannedSubgroupSize = 32;

/// This thread's partial Σ_c W[row][c] · x(c) of each of `rows` (packed
/// rows of `weight`) over groups start, start + step, ... below `end`; add
/// them across the workgroup with reduceMany. A loop trip loads every row's
/// next max(1, loadsInFlight / rows) groups before its arithmetic.
llvm::SmallVector<mlir::Value>
stridedRowDots(KernelBuilder &kb, stage::MatrixFormat format, int64_t columns,
               mlir::Value weight, llvm::ArrayRef<mlir::Value> rows, mlir::Value start,
               mlir::Value end, int64_t step,
               const std::function<mlir::Value(mlir::Value)> &input,
               int64_t loadsInFlight = kMatVecLoadsInFlight);
/// The same over rows of several matrices of one shape: (weight, row) pairs.
llvm::SmallVector<mlir::Value>
stridedRowDots(KernelBuilder &kb, stage::MatrixFormat format, int64_t columns,
               llvm::ArrayRef<std::pair<mlir::Value, mlir::Value>> rows, mlir::Value start,
               mlir::Value end, int64_t step,
               const std::function<mlir::Value(mlir::Value)> &input,
               int64_t loadsInFlight = kMatVecLoadsInFlight);
/// Sums stridedRowDots takes beside its dots: `terms(c)` gives `count`
/// values at column c, each summed over the real columns of the thread's
/// groups (a norm's x², a slerp's five products).
struct ColumnSums {
  int64_t count;
  std::function<llvm::SmallVector<mlir::Value>(mlir::Value)> terms;
  /// Where set, the same `count` values each summed over columns 4q .. 4q + 3
  /// (vector loads), used where the columns fill every group.
  std::function<llvm::SmallVector<mlir::Value>(mlir::Value)> quadTerms = {};
};
/// An activation stridedRowDots dots rows with: `at(c)` its value at column
/// c; `quad(q)`, where set, columns 4q .. 4q + 3 as one vector<4xf32>
/// (KernelBuilder::packedGroupQuads), used where the columns fill every group.
struct Activation {
  std::function<mlir::Value(mlir::Value)> at;
  std::function<mlir::Value(mlir::Value)> quad = {};
};
/// The same where row i multiplies inputs[inputOf[i]] (mat-vecs of one
/// kernel with their own activations: each formed once a group). A row with
/// secondInputOf[i] >= 0 is also dotted with that input (the same loaded
/// words): those sums follow the rows' own, in row order. Then each of
/// `extras` adds its `count` results.
llvm::SmallVector<mlir::Value>
stridedRowDots(KernelBuilder &kb, stage::MatrixFormat format, int64_t columns,
               llvm::ArrayRef<std::pair<mlir::Value, mlir::Value>> rows, mlir::Value start,
               mlir::Value end, mlir::Value step,
               llvm::ArrayRef<Activation> inputs,
               llvm::ArrayRef<unsigned> inputOf, int64_t loadsInFlight,
               llvm::ArrayRef<ColumnSums> extras = {},
               llvm::ArrayRef<int> secondInputOf = {});
KernelShape shapeOfElementwise(mlir::Operation *op, const StageToGPUOptions &o);
void buildElementwiseKernel(mlir::Operation *op, KernelBuilder &kb);
KernelShape shapeOf(stage::ConvRingOp op, const StageToGPUOptions &o);
void buildKernel(stage::ConvRingOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::GdnStepOp op, const StageToGPUOptions &o);
void buildKernel(stage::GdnStepOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::RopeKvWriteOp op, const StageToGPUOptions &o);
void buildKernel(stage::RopeKvWriteOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::KeyScoresOp op, const StageToGPUOptions &o);
void buildKernel(stage::KeyScoresOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::AttentionOp op, const StageToGPUOptions &o);
void buildKernel(stage::AttentionOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::RouterOp op, const StageToGPUOptions &o);
void buildKernel(stage::RouterOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::ClusterLogitsOp op, const StageToGPUOptions &o);
void buildKernel(stage::ClusterLogitsOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::HeadRowsOp op, const StageToGPUOptions &o);
void buildKernel(stage::HeadRowsOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::DoryPrepOp op, const StageToGPUOptions &o);
void buildKernel(stage::DoryPrepOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::SlerpOp op, const StageToGPUOptions &o);
void buildKernel(stage::SlerpOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::DoryMixOp op, const StageToGPUOptions &o);
void buildKernel(stage::DoryMixOp op, KernelBuilder &kb);
KernelShape shapeOf(stage::SampleOp op, const StageToGPUOptions &o);
void buildKernel(stage::SampleOp op, KernelBuilder &kb);

/// Vulkan's guaranteed minimum of maxComputeWorkGroupCount[0]: no grid is
/// wider; a kernel with more items walks them in turn.
constexpr int64_t kMaxGridWorkgroups = 65535;

/// Rows one item of a row-item kernel holds (mat-vec, head rows, cluster
/// logits): the format's choice (matvecShapeFor), at most `rows`.
int64_t rowsPerItem(stage::MatrixFormat format, int64_t rows, const StageToGPUOptions &o);

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t memrefSize(mlir::Value v, unsigned d) {
  return llvm::cast<mlir::MemRefType>(v.getType()).getDimSize(d);
}

} // namespace kiln

#endif // KILN_LIB_CONVERSION_STAGETOGPU_KERNELBUILDER_H
