//===- Rows.h - Kernels of a multi-row program (@prefill) -------*- C++ -*-===//
//
// A multi-row program (docs/pipeline.md, "Rows") runs each stage for every row
// of its call. Its activations hold one row per call row (stage.buffer `rows`)
// while its stages keep one row's types; the kernel binds such a buffer whole
// (memref<R x row type>) and indexes the row first. How a stage's rows run
// depends on how they depend on each other:
//  * apart: a grid of (row, the stage's own workgroups): rows are independent
//    (norms, mat-vecs, elementwise stages, ring writes, attention: a row's
//    keys are all written before, by an earlier dispatch);
//  * in order: the stage's own grid walks the rows in turn, each row's state
//    update seen by the next (conv ring, GDN step);
//  * last row: the head, which only the call's last row needs;
//  * together: a kernel of its own for all the call's rows: a plain mat-vec
//    as a blocked matrix product of the call's rows and the matrix
//    (MatMat.cpp), a GDN step with its state held across the rows (GdnRows.cpp).
// Rows past the call's row count (params word kRowCountWord) do nothing.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CONVERSION_STAGETOGPU_ROWS_H
#define KILN_LIB_CONVERSION_STAGETOGPU_ROWS_H

#include "KernelBuilder.h"

#include "llvm/ADT/DenseMap.h"

#include <functional>

namespace kiln {

enum class RowMode { Apart, InOrder, LastRow, Together };

/// How the stages of a multi-row program's dispatch `body` run their rows; an
/// error naming the stage where one has no multi-row kernel, or where the
/// stages of one dispatch would run them differently.
mlir::FailureOr<RowMode> rowModeOf(mlir::Operation *dispatch, mlir::Block &body,
                                   int64_t maxRows, const StageToGPUOptions &options);

/// Whether a multi-row program's mat-vec of up to `maxRows` call rows runs them
/// together: a plain one (no norm, up input, slerp, routed expert, split-K or
/// accumulation) whose blocks fill a grid.
bool runsRowsTogether(stage::MatVecOp op, int64_t maxRows, const StageToGPUOptions &options);
/// Its kernel's shape, and its body for the call's `count` rows of at most
/// `maxRows` (MatMat.cpp).
KernelShape shapeOfRowsTogether(stage::MatVecOp op, int64_t maxRows,
                                const StageToGPUOptions &options);
void buildRowsTogether(stage::MatVecOp op, mlir::Value count, int64_t maxRows,
                       KernelBuilder &kb);

/// A routed expert's product block lists its call rows (RoutedRows): the call
/// rows (< count, of at most maxRows) routed to expert `e` (the router's word a
/// row: routedExpert), in row order; those of ranks firstCallRow ..
/// firstCallRow + kRoutedListRows - 1 go to `list` (i32 workgroup memory),
/// `threadCounts` holds an i32 a thread. Returns how many rows the expert has
/// (the same in every thread). Every thread must reach it (barriers).
constexpr int64_t kRoutedListRows = 64;
mlir::Value listRoutedRows(KernelBuilder &kb, mlir::Value expert, mlir::Value e, int64_t experts,
                           mlir::Value count, int64_t maxRows, mlir::Value firstCallRow,
                           mlir::Value list, mlir::Value threadCounts, int64_t workgroupSize);
/// An i32 of workgroup memory (a listed call row, a count) as an index.
mlir::Value asIndex(KernelBuilder &kb, mlir::Value i32);

/// A blocked product's block (MatMat.cpp, CooperativeMatMat.cpp): block =
/// ((expert · row blocks) + row block) · call blocks + call block, of
/// `blockRows` weight rows x kRoutedListRows call rows.
struct ProductBlock {
  mlir::Value firstRow, firstCallRow;
  /// A routed expert's rows and column scales start at e·rows, e·columns (0
  /// for a plain product).
  mlir::Value rowBase, colBase;
  /// The block's call rows: count - firstCallRow of them from firstCallRow on,
  /// or a routed expert's listed ones past firstCallRow (may be 0 or more
  /// than a block).
  mlir::Value callRows;
  /// The call row at a block position and whether it is one of the block's.
  std::function<std::pair<mlir::Value, mlir::Value>(mlir::Value)> callRowAt;
};
/// The block's activations at input column `column` (of `op`'s columns) for
/// `rows` call-row positions, position(i) the i-th: x times the column scale
/// where the op has one, 0 past the call, the block's rows or the row.
llvm::SmallVector<mlir::Value> blockActivations(stage::MatVecOp op, const ProductBlock &pb,
                                                mlir::Value column, int64_t rows,
                                                llvm::function_ref<mlir::Value(int64_t)> position,
                                                KernelBuilder &kb);
/// A routed expert's lists in workgroup memory (RoutedRows: a block's call
/// rows, a count a thread); null for a plain product.
struct RoutedLists {
  mlir::Value list, threadCounts;
};
RoutedLists routedLists(stage::MatVecOp op, int64_t workgroupSize, KernelBuilder &kb);
/// Block `block` of `op`'s product over the call's `count` rows (of at most
/// `maxRows`); a routed expert's lists its call rows (every thread must reach
/// it).
ProductBlock productBlock(stage::MatVecOp op, mlir::Value block, mlir::Value count,
                          int64_t maxRows, int64_t blockRows, const RoutedLists &lists,
                          int64_t workgroupSize, KernelBuilder &kb);

/// Whether such a product runs on cooperative matrices (gpu.subgroup_mma_*;
/// StageToGPUOptions::prefillMatMatCooperative), its
/// kernel's shape and its body (CooperativeMatMat.cpp).
bool runsCooperatively(stage::MatVecOp op, int64_t maxRows, const StageToGPUOptions &options);
KernelShape shapeOfCooperative(stage::MatVecOp op, int64_t maxRows);
void buildCooperativeRows(stage::MatVecOp op, mlir::Value count, int64_t maxRows,
                          KernelBuilder &kb);

/// The workgroup width at which a GDN step holds a head's state in registers
/// across the call's rows of at most `maxRows` (GdnRows.cpp); 0 where none up
/// to the target's widest does (its rows then run in order, the state through
/// memory).
int64_t gdnRowsWidth(stage::GdnStepOp op, int64_t maxRows, const StageToGPUOptions &options);
/// The workgroups a head's value columns are spread over (StageToGPUOptions::
/// prefillGdnColumns, where the step has counters): 1, or dv / columns.
int64_t gdnRowsParts(stage::GdnStepOp op, const StageToGPUOptions &options);
/// Its body for the call's `count` rows of at most `maxRows`: a workgroup a
/// head, or a part of a head's columns.
void buildGdnRows(stage::GdnStepOp op, mlir::Value count, int64_t maxRows, KernelBuilder &kb);

/// The kernel argument type of a buffer holding `stage::bufferRows` rows of
/// its type: memref<rows x type's shape>.
mlir::MemRefType rowsType(mlir::Value buffer);

/// The host function's argument of that type for `buffer` (made once, with the
/// same placement, so the plan writer binds the same range).
mlir::Value hostRowsView(mlir::Value buffer, llvm::DenseMap<mlir::Value, mlir::Value> &made);

/// The params buffer among the arguments of `func` (a multi-row kernel reads
/// its row count there), or null.
mlir::Value paramsArgument(mlir::Operation *func);

/// Builds `stages` for each row of the call as `mode` says. `params` is the
/// kernel's params binding; `workgroups` the stages' own grid (Apart: the
/// kernel's grid is rows x workgroups, workgroup y the stages' own).
void buildRows(RowMode mode, mlir::Value params, int64_t workgroups, KernelBuilder &kb,
               const std::function<void()> &stages,
               const std::function<void(mlir::Value count)> &together);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_STAGETOGPU_ROWS_H
