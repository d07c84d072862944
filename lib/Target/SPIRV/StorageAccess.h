//===- StorageAccess.h - What a kernel does with its buffers -*- C++ -*-===//
#ifndef KILN_LIB_TARGET_SPIRV_STORAGEACCESS_H
#define KILN_LIB_TARGET_SPIRV_STORAGEACCESS_H

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

#include <functional>

namespace kiln {

/// Decorates NonWritable each StorageBuffer variable of `module` whose every
/// address is only loaded from (a kernel's input, weight and vector-view
/// bindings) and whose binding number `admit` admits: on the block's member
/// when `onMember`, else on the variable.
void markReadOnlyBuffers(mlir::spirv::ModuleOp module,
                         const std::function<bool(unsigned binding)> &admit, bool onMember);

/// Whether a thread of `module`'s kernel may read or overwrite what another
/// wrote to a storage buffer: some buffer is both written and loaded from, or
/// written at more than one place. Only then must a workgroup barrier order
/// storage-buffer memory (fused stages, multi-pass kernels).
bool handsValuesThroughStorage(mlir::spirv::ModuleOp module);

} // namespace kiln

#endif // KILN_LIB_TARGET_SPIRV_STORAGEACCESS_H
