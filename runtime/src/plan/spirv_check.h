// Validates a kernel's SPIR-V words with SPIRV-Tools (the validator behind spirv-val)
// before any driver sees them: a plan is untrusted input, and drivers' shader compilers
// crash on malformed modules (issue 12: one to four flipped bytes crashed lavapipe).
#ifndef KILN_RUNTIME_PLAN_SPIRV_CHECK_H
#define KILN_RUNTIME_PLAN_SPIRV_CHECK_H

#include "base/status.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::rt {

/// OK, or INVALID_ARGUMENT naming `path` and the validator's first diagnostic
/// (the rules of the Vulkan 1.1 environment the compiler targets).
Status validateSpirv(const uint32_t *words, size_t count, const std::string &path);

} // namespace kiln::rt

#endif // KILN_RUNTIME_PLAN_SPIRV_CHECK_H
