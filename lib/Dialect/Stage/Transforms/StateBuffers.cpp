//===- StateBuffers.cpp - State buffers a transform adds ------------------===//
#include "kiln/Dialect/Stage/Transforms/StateBuffers.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace kiln::stage {

Value addStateBuffer(FunctionOpInterface func, StringRef name, MemRefType type,
                     Location loc) {
  MLIRContext *ctx = func->getContext();
  int64_t bytes = type.getNumElements() * (type.getElementTypeBitWidth() / 8);
  auto buffer = BufferAttr::get(ctx, BufferKind::State, name, /*slot=*/std::nullopt,
                                /*byte_offset=*/0, /*byte_size=*/bytes, /*tensors=*/{},
                                /*rows=*/1);
  NamedAttribute attr(StringAttr::get(ctx, kBufferAttrName), buffer);
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(index, type, DictionaryAttr::get(ctx, {attr}), loc)))
    return Value();
  return func.getArgument(index);
}

Value addStateWords(FunctionOpInterface func, StringRef name, int64_t words, Location loc) {
  return addStateBuffer(func, name, MemRefType::get({words}, IntegerType::get(func->getContext(), 32)),
                        loc);
}

} // namespace kiln::stage
