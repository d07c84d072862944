//===- GdnStep.h - The GDN step's pieces, for one row and for many -*- C++ -*-===//
//
// GdnStep.cpp builds the decode step (one row a call), GdnRows.cpp the
// multi-row form that holds a head's state across a call's rows. Both walk a
// head the same way: a workgroup of C column lanes x P row slices (lane c owns
// value columns c, c + C, ...; slice s the state rows s, s + P, ...), q and k
// normalised once into workgroup memory, column sums reduced over the slices,
// the gated norm applied to the head's output.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CONVERSION_STAGETOGPU_GDNSTEP_H
#define KILN_LIB_CONVERSION_STAGETOGPU_GDNSTEP_H

#include "KernelBuilder.h"

namespace kiln {

/// Column lanes and row slices of a workgroup of `width` threads, and the
/// state rows of one column each thread takes.
struct GdnLayout {
  int64_t lanes, slices, rowsPerThread;
};
GdnLayout gdnLayout(int64_t dk, int64_t dv, int64_t width);

/// A workgroup's head (its workgroup id) and where its q, k, v and output lie.
/// Thread t is column lane t mod C of slice t / C, or, with adjacent slices,
/// lane t / P of slice t mod P: a column's P slices are neighbouring threads
/// of one subgroup (where it is at least P wide), summed by shuffles.
/// With `parts` > 1 a head's value columns are spread over that many
/// workgroups (workgroup id = head · parts + part): the layout covers a part's
/// `columns` = ceil(dv / parts), whose first is `firstColumn`.
struct GdnHead {
  int64_t dk, dv, width, parts = 1, columns;
  GdnLayout layout;
  bool adjacentSlices = false;
  mlir::Value head, tid, qBase, kBase, vBase, oBase, lane, slice, firstColumn;
};
GdnHead gdnHead(stage::GdnStepOp op, KernelBuilder &kb, bool adjacentSlices = false,
                int64_t parts = 1);

/// The thread's state rows of column `j`, all loaded at once: the row index
/// (clamped into the state), whether it lies in it (null: always), the cell
/// (0 past the state).
struct GdnHeldRows {
  llvm::SmallVector<mlir::Value> rows, inRange, cells;
};
GdnHeldRows loadHeldRows(const GdnHead &h, mlir::Value state, mlir::Value j, KernelBuilder &kb);

/// q and k of the head normalised into workgroup memory (q also by sqrt(dk)),
/// and the workgroup buffer sumSlices reduces in; ends with a barrier.
struct GdnNormalised {
  mlir::Value qHat, kHat, partials;
};
GdnNormalised normaliseQK(const GdnHead &h, mlir::Value qkv, KernelBuilder &kb);

/// 1/(|q|·sqrt(dk)) and 1/|k| from |q|² and |k|² (ε 1e-6 under each root).
std::pair<mlir::Value, mlir::Value> inverseQKNorms(mlir::Value qq, mlir::Value kk, int64_t dk,
                                                   KernelBuilder &kb);

/// The step's decay exp(-exp(a_log)·softplus(a + dt_bias)) and β = sigmoid(b),
/// from a_log, a + dt_bias and b.
std::pair<mlir::Value, mlir::Value> decayAndBeta(mlir::Value aLog, mlir::Value a,
                                                 mlir::Value bGate, KernelBuilder &kb);

/// Σ over the slices of column lane `lane`'s partials; every thread gets it.
/// Through `partials` and a barrier, which may not be written again before
/// another barrier (sumSlices adds it); adjacent slices by subgroup shuffles
/// and no barrier, or through `partials` where the subgroup is narrower than
/// the slices (read at run time).
mlir::Value sumSlicesOnce(const GdnHead &h, mlir::Value partials, mlir::Value partial,
                          KernelBuilder &kb);
/// The same, ending with a barrier (after a sum through `partials`) so that
/// `partials` can be written again.
mlir::Value sumSlices(const GdnHead &h, mlir::Value partials, mlir::Value partial,
                      KernelBuilder &kb);

/// The gated norm's 1/rms of a head's output from its sum of squares over dv.
mlir::Value gatedNormInverse(stage::GdnStepOp op, mlir::Value squares, int64_t dv,
                             KernelBuilder &kb);

/// The gated norm's output of `value` at output `at`: value·inv·weight·silu(gate),
/// times the column fold where the step has one.
mlir::Value gatedOutput(stage::GdnStepOp op, mlir::Value value, mlir::Value at, mlir::Value inv,
                        mlir::Value normWeight, mlir::Value gate, KernelBuilder &kb);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_STAGETOGPU_GDNSTEP_H
