//===- ScratchSlots.cpp - Re-running the scratch memory plan --------------===//
#include "kiln/Dialect/Stage/Transforms/ScratchSlots.h"

#ifdef KILN_HAVE_KILN_TO_STAGE
#include "kiln/Conversion/KilnToStage/KilnToStage.h"
#endif

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace kiln::stage {

bool canReplanScratch(FunctionOpInterface f) {
#ifdef KILN_HAVE_KILN_TO_STAGE
  return isa<func::FuncOp>(f.getOperation()) && f->hasAttr("kiln.slots");
#else
  (void)f;
  return false;
#endif
}

void releaseScratchSlots(FunctionOpInterface f) {
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    auto dict = f.getArgAttrOfType<DictionaryAttr>(i, "kiln.buffer");
    auto kind = dict ? dict.getAs<StringAttr>("kind") : StringAttr();
    if (!kind || kind.getValue() != "scratch")
      continue;
    NamedAttrList fields(dict);
    fields.erase("slot");
    f.setArgAttr(i, "kiln.buffer", fields.getDictionary(f->getContext()));
  }
}

void replanScratchSlots(FunctionOpInterface f) {
#ifdef KILN_HAVE_KILN_TO_STAGE
  planMemory(cast<func::FuncOp>(f.getOperation()));
#else
  (void)f;
#endif
}

} // namespace kiln::stage
