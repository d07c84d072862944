//===- StateBuffers.h - State buffers a transform adds ----------*- C++ -*-===//
//
// Some transforms need a few words of device memory of their own that live
// across calls: the sink of kiln-prefetch-weights, the counter of a
// last-workgroup tail, the block partials of a split_keys dispatch. They become state buffers (zeroed at session start and
// on reset), outside the memory plan's slots so nothing live can alias them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_STAGE_TRANSFORMS_STATEBUFFERS_H
#define KILN_DIALECT_STAGE_TRANSFORMS_STATEBUFFERS_H

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace kiln::stage {

/// Appends to `func` an argument of `words` i32 words placed as the state
/// buffer `name`; a null value if the argument cannot be added.
mlir::Value addStateWords(mlir::FunctionOpInterface func, llvm::StringRef name,
                          int64_t words, mlir::Location loc);

/// Appends to `func` an argument of `type` (a static memref) placed as the
/// state buffer `name`; a null value if the argument cannot be added.
mlir::Value addStateBuffer(mlir::FunctionOpInterface func, llvm::StringRef name,
                           mlir::MemRefType type, mlir::Location loc);

} // namespace kiln::stage

#endif // KILN_DIALECT_STAGE_TRANSFORMS_STATEBUFFERS_H
