//===- PlanKernels.cpp - The kernels a plan embeds, compiled --------------===//
#include "kiln/Target/Plan/PlanKernels.h"

using namespace mlir;

namespace kiln {

FailureOr<PlanKernelBinaries> compilePlanKernels(ModuleOp module, bool withMSL,
                                                 const TargetOptions &spirv) {
  FailureOr<std::vector<KernelBinary>> binaries = emitSPIRV(module, spirv);
  if (failed(binaries))
    return failure();
  PlanKernelBinaries kernels;
  kernels.spirv = std::move(*binaries);
  if (withMSL)
    for (const KernelBinary &binary : kernels.spirv) {
      MSLResult result = emitMSL(binary.words);
      if (!result.ok)
        return module.emitError("MSL: kernel ") << binary.name << ": " << result.error,
               failure();
      kernels.msl[binary.name] = std::move(result.kernel);
    }
  return kernels;
}

} // namespace kiln
