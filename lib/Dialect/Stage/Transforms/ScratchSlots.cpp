//===- ScratchSlots.cpp - Re-running the scratch memory plan --------------===//
#include "kiln/Dialect/Stage/Transforms/ScratchSlots.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"
#include "kiln/Dialect/Stage/Transforms/MemoryPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace kiln::stage {

bool canReplanScratch(FunctionOpInterface f) {
  return isa<func::FuncOp>(f.getOperation()) && f->hasAttr(kSlotsAttrName);
}

void releaseScratchSlots(FunctionOpInterface f) {
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    BufferAttr buffer = bufferAttrOf(f, i);
    if (!buffer || buffer.getKind() != BufferKind::Scratch)
      continue;
    f.setArgAttr(i, kBufferAttrName,
                 buffer.withPlacement(/*slot=*/std::nullopt, buffer.getByteOffset()));
  }
}

void replanScratchSlots(FunctionOpInterface f) {
  planMemory(cast<func::FuncOp>(f.getOperation()));
}

} // namespace kiln::stage
