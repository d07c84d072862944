//===- PlanKernels.cpp - The kernels a plan embeds, compiled --------------===//
#include "kiln/Target/Plan/PlanKernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "llvm/ADT/StringMap.h"

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

std::function<bool(StringRef, unsigned)>
readOnlyKindsFilter(ModuleOp module, ArrayRef<stage::BufferKind> kinds) {
  // Per kernel and binding: admitted by every launch seen so far.
  auto admitted = std::make_shared<llvm::StringMap<std::vector<bool>>>();
  module.walk([&](gpu::LaunchFuncOp launch) {
    auto func = launch->getParentOfType<func::FuncOp>();
    std::vector<bool> here;
    for (Value operand : launch.getKernelOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand);
      stage::BufferAttr buffer;
      if (func && arg && arg.getOwner()->isEntryBlock() &&
          arg.getOwner()->getParentOp() == func.getOperation())
        buffer = func.getArgAttrOfType<stage::BufferAttr>(arg.getArgNumber(), "stage.buffer");
      here.push_back(buffer && llvm::is_contained(kinds, buffer.getKind()));
    }
    auto [it, inserted] = admitted->try_emplace(launch.getKernelName().getValue(), here);
    if (!inserted)
      for (size_t i = 0; i < it->second.size(); ++i)
        it->second[i] = it->second[i] && i < here.size() && here[i];
  });
  return [admitted](StringRef kernel, unsigned binding) {
    auto it = admitted->find(kernel);
    return it != admitted->end() && binding < it->second.size() && it->second[binding];
  };
}

} // namespace kiln
