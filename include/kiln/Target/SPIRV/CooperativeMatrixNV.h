//===- CooperativeMatrixNV.h - KHR cooperative matrices as NV ones -*- C++ -*-===//
//
// MLIR lowers gpu.subgroup_mma_* to SPV_KHR_cooperative_matrix (SPIR-V 1.6),
// which the SPIRV-Tools of Debian 12 (2023.1) cannot parse, and the runtime
// validates every kernel with it before the driver sees one. The same
// operations exist as SPV_NV_cooperative_matrix, which that validator knows
// and NVIDIA's Vulkan drivers run (VK_NV_cooperative_matrix): this rewrites a
// serialized module from the one to the other, so a tensor-core kernel can be
// validated like any other (under Vulkan 1.3 rules: the module stays SPIR-V
// 1.6). Not yet used by a kernel (docs/pipeline.md, "Rows").
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_SPIRV_COOPERATIVEMATRIXNV_H
#define KILN_TARGET_SPIRV_COOPERATIVEMATRIXNV_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace kiln {

/// `words` with every SPV_KHR_cooperative_matrix capability, extension, type
/// and instruction replaced by its SPV_NV_cooperative_matrix form: a type
/// drops its use (A, B or accumulator), a load or store takes its stride and
/// a column-major bool (an OpConstantTrue/False, added where the module has
/// none) instead of a layout, a multiply-add drops its operand flags. A module
/// without the KHR capability comes back unchanged. Fails, naming the rule, on
/// a malformed module, a layout that is not a constant RowMajor or ColumnMajor,
/// a load or store without a stride, a multiply-add with operand flags (the NV
/// form has none: integer signedness, saturation), or two KHR types that
/// differ only in their use (the NV types would be duplicates, which SPIR-V
/// forbids).
llvm::Expected<std::vector<uint32_t>> cooperativeMatrixKHRToNV(llvm::ArrayRef<uint32_t> words);

} // namespace kiln

#endif // KILN_TARGET_SPIRV_COOPERATIVEMATRIXNV_H
