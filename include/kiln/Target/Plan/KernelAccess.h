//===- KernelAccess.h - How a kernel uses each argument ---------*- C++ -*-===//
#ifndef KILN_TARGET_PLAN_KERNELACCESS_H
#define KILN_TARGET_PLAN_KERNELACCESS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <vector>

namespace kiln {

struct ArgumentAccess {
  bool reads = false;
  bool writes = false;
};

/// Per argument of `kernel`: whether the body reads and/or writes it, from
/// the memory effects of the ops that use it (through view-like ops). A use
/// whose effects are unknown counts as read and write: conservative, so a
/// barrier is never missed.
std::vector<ArgumentAccess> analyseKernelAccess(mlir::gpu::GPUFuncOp kernel);

} // namespace kiln

#endif // KILN_TARGET_PLAN_KERNELACCESS_H
