//===- ReadOnlyBuffers.h - NonWritable on read-only buffers -*- C++ -*-===//
#ifndef KILN_LIB_TARGET_SPIRV_READONLYBUFFERS_H
#define KILN_LIB_TARGET_SPIRV_READONLYBUFFERS_H

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

#include <functional>

namespace kiln {

/// Decorates NonWritable each StorageBuffer variable of `module` whose every
/// address is only loaded from (a kernel's input, weight and vector-view
/// bindings) and whose binding number `admit` admits: on the block's member
/// when `onMember`, else on the variable.
void markReadOnlyBuffers(mlir::spirv::ModuleOp module,
                         const std::function<bool(unsigned binding)> &admit, bool onMember);

} // namespace kiln

#endif // KILN_LIB_TARGET_SPIRV_READONLYBUFFERS_H
