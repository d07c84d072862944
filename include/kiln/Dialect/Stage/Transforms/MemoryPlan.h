//===- MemoryPlan.h - Scratch buffers to physical slots ---------*- C++ -*-===//
#ifndef KILN_DIALECT_STAGE_TRANSFORMS_MEMORYPLAN_H
#define KILN_DIALECT_STAGE_TRANSFORMS_MEMORYPLAN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::stage {

/// Assigns every scratch argument of `func` a physical slot by liveness over
/// the order of its stage.dispatch ops (docs/memory.md) and fills in the
/// `slot`/`byte_offset` fields of the arguments' stage.buffer attributes and
/// the func's stage.slots table. Non-scratch buffers get a slot each. Returns
/// the number of slots.
int64_t planMemory(mlir::func::FuncOp func);

} // namespace kiln::stage

#endif // KILN_DIALECT_STAGE_TRANSFORMS_MEMORYPLAN_H
