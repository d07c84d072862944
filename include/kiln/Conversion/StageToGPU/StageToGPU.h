//===- StageToGPU.h - Stages to GPU kernels ---------------------*- C++ -*-===//
#ifndef KILN_CONVERSION_STAGETOGPU_STAGETOGPU_H
#define KILN_CONVERSION_STAGETOGPU_STAGETOGPU_H

#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln {

#define GEN_PASS_DECL_CONVERTSTAGETOGPU
#include "kiln/Conversion/Passes.h.inc"

/// A mat-vec kernel switch set per weight format: a target measures its f16
/// and q8_2f mat-vecs apart (on an H100, scalar sums speed the f16 decode up
/// and slow the q8_2f one down: docs/performance.md).
struct FormatSwitch {
  bool f16 = false;
  bool q8 = false;
  bool of(stage::MatrixFormat format) const {
    return format == stage::MatrixFormat::q8_2f ? q8 : f16;
  }
  static FormatSwitch both(bool on) { return {on, on}; }
};

/// A mat-vec item's shape: rows an item x 16-byte groups a thread a row
/// (0: the weight format's default).
struct ItemShape {
  int64_t rows = 0;
  int64_t groups = 0;
};

/// An item shape per weight format.
struct FormatItemShape {
  ItemShape f16;
  ItemShape q8;
  const ItemShape &of(stage::MatrixFormat format) const {
    return format == stage::MatrixFormat::q8_2f ? q8 : f16;
  }
};

/// How kernels are shaped; the pass fills it from its options and the target.
/// How a cooperative-matrix product (f16 inputs) takes its f32 activations x:
/// HiOnly, f16(x) (11 significant bits); HiLo, hi = f16(x) and lo = f16(x - hi)
/// into the same accumulators; ScaledLo, hi = x with its mantissa cut to 10
/// bits and lo = 2^11 (x - hi), each half into accumulators of its own, lo's
/// scaled back at the end (about 21 bits: no rounding round trip a driver
/// might fold, no f16 subnormal lo).
enum class CooperativeSplit { HiOnly = 0, HiLo = 1, ScaledLo = 2 };

struct StageToGPUOptions {
  int64_t rowWorkgroupSize = 64;
  int64_t reduceWorkgroupSize = 256;
  /// The widest workgroup the target runs (a multi-row GDN step widens its
  /// workgroup up to it to hold a head's state: GdnRows.cpp).
  int64_t maxWorkgroupSize = 256;
  int64_t headWorkgroupSize = 64;
  /// Threads of an attention workgroup (a workgroup per query head: its keys
  /// and value dims spread over all of them).
  int64_t attentionWorkgroupSize = 256;
  /// Head dims one attention / window_attention workgroup sums (the grid is
  /// heads x head_dim / this); 0: the largest power of two dividing head_dim,
  /// at most 16.
  int64_t attentionValueDims = 0;
  bool subgroupReduce = false;
  /// Mat-vec rows a workgroup computes per item (each group's activations
  /// read once for all of them) and 16-byte groups a thread reads per row,
  /// for both weight formats (kiln-compile's flags); 0 leaves the choice to
  /// matvecItemShape, then to the format's default (matvecShapeFor).
  int64_t matvecRowsPerItem = 0;
  int64_t matvecGroupsPerThread = 0;
  /// The target's item shape per weight format (0: the format's default).
  FormatItemShape matvecItemShape;
  /// Groups a thread for mat-vecs that read one plain input (no norm, up,
  /// column scale or slerp: fewer loads a group), both formats; 0: as the
  /// others. Measured at 2 on an H100: dory-1b q8_2f +2.5%, embryo-1b q8_2f
  /// -2.4%, f16 -4 to -8% (docs/performance.md): off by default.
  int64_t matvecPlainGroupsPerThread = 0;
  /// 16-byte weight loads a mat-vec thread issues before their arithmetic
  /// (rows x groups); 0: kMatVecLoadsInFlight.
  int64_t matvecLoadsInFlight = 0;
  /// A subgroup computes each mat-vec item (its lanes walk the item's
  /// columns, one subgroup reduction, no barrier) instead of a whole
  /// workgroup; only where subgroupReduce holds.
  bool matvecSubgroupItems = false;
  /// Mat-vec rows are summed in one f32 a row (fused multiply-add chains)
  /// instead of four lane sums added at the end: a quarter of the
  /// accumulator registers, a different summation order. Per weight format.
  FormatSwitch matvecScalarSums;
  /// A normed mat-vec (split_k 1) sums its input's squares beside its dots
  /// and scales the row totals by 1/rms, instead of every workgroup first
  /// reducing the mean square before its weight loads. Per weight format.
  FormatSwitch matvecNormAfterDots;
  /// At most this many workgroups a mat-vec grid (0: one a workgroup's
  /// items, up to kMaxGridWorkgroups); the grid's workgroups walk the rest
  /// of the items in turn.
  int64_t matvecGridLimit = 0;
  /// Each mat-vec workgroup forms its activation (norm, silu·up, column
  /// scale, slerp) once, for every column, in workgroup memory, and every
  /// item it walks reads it there, instead of forming each group's
  /// activations again an item (pays where a workgroup walks several items:
  /// matvecGridLimit). Not for a slerp after the dots, nor an input past
  /// half the workgroup memory.
  bool matvecStageInput = false;
  /// A multi-row program's plain mat-vec (docs/pipeline.md, "Rows") of at
  /// least this many blocks of 64 weight rows x 64 call rows runs its call rows
  /// together, a blocked matrix product (MatMat.cpp: each weight decoded once
  /// for 64 call rows); a smaller one (few workgroups walking every column:
  /// embryo-1b's 16-row GDN gates took 193 us a 256-row call as one block on an
  /// H100), or any with 0, a workgroup per (call row, item), as any stage
  /// whose rows are apart.
  int64_t prefillMatMatMinBlocks = 8;
  /// A blocked product's thread tile: 4 (4 weight rows x 4 call rows, 256
  /// threads a block of 64 x 64), 8 (8 x 8, 64 threads: four workgroup-memory
  /// loads a column for 64 multiply-adds instead of two for 16), or 0: 8
  /// where the product has at least 512 blocks, else 4.
  int64_t prefillMatMatTile = 0;
  /// A blocked product that is not a routed expert's runs on cooperative
  /// matrices (CooperativeMatMat.cpp: gpu.subgroup_mma_*, f16 inputs with the
  /// activations split in two halves, f32 sums) instead of f32 multiply-adds.
  /// Its kernel needs SPV_NV_cooperative_matrix, SPIR-V 1.6 (Vulkan 1.3) and
  /// subgroups of 32 lanes; the runtime refuses a plan with it elsewhere.
  bool prefillMatMatCooperative = false;
  /// How its activations become f16 (CooperativeSplit).
  CooperativeSplit prefillMatMatCooperativeSplit = CooperativeSplit::ScaledLo;
  /// A multi-row program's GDN step holds a head's state in registers across
  /// the call's rows (GdnRows.cpp) where a workgroup can; false: the decode
  /// kernel walks the rows in order, the state through memory.
  bool prefillGdnHeld = true;
  /// Rows of a held GDN step's chunk (their norms and gated outputs computed
  /// in parallel beside the serial part); 0: as many as 32 KiB of workgroup
  /// memory (or the target's less) holds.
  int64_t prefillGdnChunkRows = 0;
  /// A held GDN step sums a column's row slices with subgroup shuffles (the
  /// slices neighbouring threads of one subgroup) instead of through workgroup
  /// memory behind a barrier, two a row; only where the target has subgroup
  /// shuffles (subgroupShuffle), and a subgroup narrower than the slices
  /// falls back to memory at run time.
  bool prefillGdnShuffleSums = false;
  /// A held GDN step spreads a head's value columns over workgroups of this
  /// many columns each (0: a workgroup a head): the serial part's work a row
  /// (the head's dk x dv state) then runs on several SMs; the last of a head's
  /// workgroups applies the gated norm (stage.gdn_step's counters).
  int64_t prefillGdnColumns = 0;
  /// The same for the decode GDN step (GdnStep.cpp): two barriers fewer a
  /// column pass.
  bool gdnShuffleSums = false;
  /// The target env has GroupNonUniformShuffle (set by the pass).
  bool subgroupShuffle = false;
  /// A mat-vec that takes Dory's slerp (split_k 1, workgroup items) dots
  /// each row with u = (1 − α)h and w = αo apart and sums the slerp's five
  /// products beside the dots, forming the row totals and the new h after
  /// the closing reduction, instead of reducing the five sums before its
  /// weight loads.
  bool matvecSlerpAfterDots = false;
  /// q8_2f codes become f32s under 2^23's exponent (a byte select, an
  /// exclusive or, one subtract) instead of a sign-extending shift pair and an
  /// int-to-float conversion, which NVIDIA GPUs issue at a quarter of the
  /// float rate or less: a q8_2f mat-vec converts one code per byte it reads.
  /// Off: 4.8% slower on the H200 (docs/performance.md, fifteenth session).
  bool q8DecodeByExponent = false;
  /// head_rows: subgroups compute a cluster's rows a few at a time (one
  /// subgroup reduction each), its log-softmax taken in workgroup memory,
  /// instead of the whole workgroup walking the rows in dependent items;
  /// only where subgroupReduce holds.
  bool headRowsBySubgroup = true;
  /// head_rows and mat-vecs whose activation is formed from several buffers
  /// (the input with a norm weight, a column scale or an up input) read them
  /// four columns a load, through a vector<4xf32> view of each buffer (a
  /// second binding of the same range), instead of one f32 a load. Only
  /// where every such buffer is a whole number of vec4s, the columns fill
  /// whole groups, there is no slerp, and the kernel writes none of them.
  /// Per weight format: on an H100, q8_2f's head_rows took 40 us instead of
  /// 80 and its normed, column-scaled mat-vecs 13-18% less (ninth session);
  /// once read-only buffers were NonWritable, f16 gained too (embryo-1b +1.3%
  /// in two sittings, dory-1b unchanged: docs/performance-history-2.md, tenth session).
  FormatSwitch vectorActivations{/*f16=*/true, /*q8=*/true};
  /// Bytes of workgroup memory a kernel may declare (the target's
  /// max_shared_memory_bytes); 0: unchecked. A kernel over it that takes sums
  /// beside its dots is built again with them reduced before the dots; one
  /// still over it is an error naming the kernel.
  int64_t maxWorkgroupMemoryBytes = 0;
  /// Kernels with identical bodies (one layer's and the next's) become one
  /// kernel, each launch keeping its dispatch's name as its label; off, every
  /// dispatch has a kernel of its own (kiln-compile --merge-kernels=false).
  bool mergeIdenticalKernels = true;
};

/// Rows per item and groups per thread for mat-vecs of `format`: the
/// options where set, else the per-format defaults measured on the H200
/// (docs/performance.md: f16 4 x 4, q8_2f 8 x 8).
std::pair<int64_t, int64_t> matvecShapeFor(stage::MatrixFormat format,
                                           const StageToGPUOptions &options);

/// Lowers every stage.dispatch of `module` into a kernel of the
/// `gpu.module @kiln_kernels` and a gpu.launch_func. Errors are emitted as
/// diagnostics on the offending op.
mlir::LogicalResult convertStagesToGPU(mlir::ModuleOp module,
                                       const StageToGPUOptions &options);

/// convert-stage-to-gpu with its options taken from `kernels` as they are
/// (the pipeline keeps one StageToGPUOptions; the pass's own options set a
/// per-format switch for both formats at once).
std::unique_ptr<mlir::Pass> createConvertStageToGPU(const StageToGPUOptions &kernels);

} // namespace kiln

#endif // KILN_CONVERSION_STAGETOGPU_STAGETOGPU_H
