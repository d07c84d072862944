// Bounds every indexed access of a kernel (issue 12): SPIRV-Tools' graphics robust
// access pass clamps each access chain's indices into its array, workgroup memory
// included, which robustBufferAccess does not cover. On a CPU device (lavapipe) a
// kernel runs inside the host process, so an index past a workgroup array, even in a
// kernel that passes validation, is a host memory access; clamped, it reads and writes
// inside the array.
#ifndef KILN_RUNTIME_PLAN_SPIRV_ROBUST_H
#define KILN_RUNTIME_PLAN_SPIRV_ROBUST_H

#include "base/status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::rt {

/// `words` with every access chain index clamped into its array, in `out`; or
/// INVALID_ARGUMENT naming `path` when the pass cannot bound the module.
Status clampKernelAccesses(const uint32_t *words, size_t count, const std::string &path,
                           std::vector<uint32_t> &out);

} // namespace kiln::rt

#endif // KILN_RUNTIME_PLAN_SPIRV_ROBUST_H
