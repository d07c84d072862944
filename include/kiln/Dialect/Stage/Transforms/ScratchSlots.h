//===- ScratchSlots.h - Re-running the scratch memory plan ------*- C++ -*-===//
//
// convert-kiln-to-stage lays scratch planes into slots for the order it
// emits (stage.slots). Passes that reorder or rewrite dispatches drop those
// slots first (two scratch buffers then alias only when they are the same
// value) and lay them out again afterwards, for the new order.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_STAGE_TRANSFORMS_SCRATCHSLOTS_H
#define KILN_DIALECT_STAGE_TRANSFORMS_SCRATCHSLOTS_H

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace kiln::stage {

/// Whether `f`'s scratch slots came from convert-kiln-to-stage's memory plan
/// (`stage.slots`) and this build can run that plan again.
bool canReplanScratch(mlir::FunctionOpInterface f);

/// Drops the slot of every scratch buffer of `f`.
void releaseScratchSlots(mlir::FunctionOpInterface f);

/// Runs the memory plan again over `f`'s current order.
void replanScratchSlots(mlir::FunctionOpInterface f);

} // namespace kiln::stage

#endif // KILN_DIALECT_STAGE_TRANSFORMS_SCRATCHSLOTS_H
