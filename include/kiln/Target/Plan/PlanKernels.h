//===- PlanKernels.h - The kernels a plan embeds, compiled -------*- C++ -*-===//
//
// The plan writer compiles nothing: its caller hands it every kernel of the
// module as SPIR-V (Target/SPIRV) and, for a plan that embeds MSL, as MSL
// (Target/MSL, from that SPIR-V). compilePlanKernels is the usual caller's
// way to get them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_PLAN_PLANKERNELS_H
#define KILN_TARGET_PLAN_PLANKERNELS_H

#include "kiln/Dialect/Stage/IR/StageAttrs.h"
#include "kiln/Target/MSL/MSLEmitter.h"
#include "kiln/Target/SPIRV/SPIRVEmitter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {

/// The module's kernels as its caller compiled them: the SPIR-V of every
/// gpu.func (always: the plan takes workgroup sizes and subgroup features
/// from it) and, for a plan that embeds MSL, each kernel's MSL by name.
struct PlanKernelBinaries {
  std::vector<KernelBinary> spirv;
  std::map<std::string, MSLKernel> msl;
};

/// Compiles every kernel of `module`: SPIR-V with `spirv`, and MSL from it
/// when `withMSL`. Errors are emitted as diagnostics on the module.
mlir::FailureOr<PlanKernelBinaries> compilePlanKernels(mlir::ModuleOp module, bool withMSL,
                                                       const TargetOptions &spirv = {});

/// A TargetOptions::readOnlyFilter admitting the bindings whose buffer (the
/// launching function's argument and its `stage.buffer` kind) is one of
/// `kinds`, in every launch of the kernel; a binding of no known kind is not
/// admitted.
std::function<bool(llvm::StringRef, unsigned)>
readOnlyKindsFilter(mlir::ModuleOp module, llvm::ArrayRef<stage::BufferKind> kinds);

} // namespace kiln

#endif // KILN_TARGET_PLAN_PLANKERNELS_H
