//===- KernelAccess.cpp - Read/write use of kernel arguments --------------===//
#include "kiln/Target/Plan/KernelAccess.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace kiln {
namespace {

void accumulateUses(Value value, ArgumentAccess &access) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
      if (view.getViewSource() == value) {
        for (Value result : user->getResults())
          accumulateUses(result, access);
        continue;
      }
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects) {
      // Unknown use (a call, an unregistered op): assume the worst.
      access.reads = access.writes = true;
      continue;
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffectsOnValue(value, instances);
    for (const auto &instance : instances) {
      if (isa<MemoryEffects::Read>(instance.getEffect()))
        access.reads = true;
      else if (isa<MemoryEffects::Write>(instance.getEffect()))
        access.writes = true;
      else
        access.reads = access.writes = true; // Allocate/Free on a binding: odd
    }
  }
}

} // namespace

std::vector<ArgumentAccess> analyseKernelAccess(gpu::GPUFuncOp kernel) {
  std::vector<ArgumentAccess> result(kernel.getNumArguments());
  if (kernel.getBody().empty())
    return result;
  // Only the bindings: a gpu.func's entry block also holds its workgroup and
  // private attributions after them.
  for (unsigned index = 0; index < kernel.getNumArguments(); ++index)
    accumulateUses(kernel.getArgument(index), result[index]);
  return result;
}

} // namespace kiln
