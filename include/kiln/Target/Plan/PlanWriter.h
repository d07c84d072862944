//===- PlanWriter.h - Final module -> flatbuffer plan -----------*- C++ -*-===//
//
// Reads the module convert-stage-to-gpu leaves (docs/pipeline.md): host
// func.func programs whose gpu.launch_func operands are func arguments carrying
// `stage.buffer` attributes, and the `gpu.module` of kernels. Builds the plan
// of schemas/plan.fbs: buffers from the memory plan's slots, weight tensors,
// kernels (the SPIR-V and MSL its caller compiled), the parameter block,
// programs with barriers computed from read/write sets, readback and device
// flags. docs/plan.md says how each field is filled. The writer compiles
// nothing itself: the caller runs Target/SPIRV and Target/MSL.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_PLAN_PLANWRITER_H
#define KILN_TARGET_PLAN_PLANWRITER_H

#include "kiln/Target/Plan/PlanKernels.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

struct PlanWriterOptions {
  /// Which kernel forms to embed. The plan's `target` is Vulkan whenever
  /// SPIR-V is embedded, else Metal.
  bool embedSPIRV = true;
  bool embedMSL = false;
  /// For the Plan.producer field (messages only).
  std::string producer = "kiln-compile 0.1";
  /// A barrier before every dispatch but the first (debugging: rules out a
  /// missed dependency when a plan disagrees with the reference).
  bool barrierEveryDispatch = false;
  /// Every dispatch in every call, first-call ones too (debugging, and the
  /// A/B of what leaving them out of later calls saves).
  bool everyDispatchEveryCall = false;
};

/// The serialized plan (a finished flatbuffer with identifier KPLN) of
/// `module` with its compiled `kernels`. Errors are emitted as diagnostics
/// on the module or on the offending op.
mlir::FailureOr<std::vector<uint8_t>> buildPlan(mlir::ModuleOp module,
                                                const PlanKernelBinaries &kernels,
                                                const PlanWriterOptions &options);

} // namespace kiln

#endif // KILN_TARGET_PLAN_PLANWRITER_H
