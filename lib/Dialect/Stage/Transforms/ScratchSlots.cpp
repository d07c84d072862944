//===- ScratchSlots.cpp - Re-running the scratch memory plan --------------===//
#include "kiln/Dialect/Stage/Transforms/ScratchSlots.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"
#include "kiln/Dialect/Stage/Transforms/MemoryPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace kiln::stage {

bool canReplanScratch(FunctionOpInterface f) {
  return isa<func::FuncOp>(f.getOperation()) && f->hasAttr(kSlotsAttrName);
}

void releaseScratchSlots(FunctionOpInterface f) {
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    auto dict = f.getArgAttrOfType<DictionaryAttr>(i, kBufferAttrName);
    auto kind = dict ? dict.getAs<StringAttr>("kind") : StringAttr();
    if (!kind || kind.getValue() != bufferKindName(BufferKind::Scratch))
      continue;
    NamedAttrList fields(dict);
    fields.erase("slot");
    f.setArgAttr(i, kBufferAttrName, fields.getDictionary(f->getContext()));
  }
}

void replanScratchSlots(FunctionOpInterface f) {
  planMemory(cast<func::FuncOp>(f.getOperation()));
}

} // namespace kiln::stage
