//===- StateBuffers.cpp - State buffers a transform adds ------------------===//
#include "kiln/Dialect/Stage/Transforms/StateBuffers.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace kiln::stage {

Value addStateWords(FunctionOpInterface func, StringRef name, int64_t words, Location loc) {
  MLIRContext *ctx = func->getContext();
  auto type = MemRefType::get({words}, IntegerType::get(ctx, 32));
  auto buffer = BufferAttr::get(ctx, BufferKind::State, name, /*slot=*/std::nullopt,
                                /*byte_offset=*/0, /*byte_size=*/words * 4, /*tensors=*/{});
  NamedAttribute attr(StringAttr::get(ctx, kBufferAttrName), buffer);
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(index, type, DictionaryAttr::get(ctx, {attr}), loc)))
    return Value();
  return func.getArgument(index);
}

} // namespace kiln::stage
