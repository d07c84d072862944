// Validates a kernel's SPIR-V words with SPIRV-Tools (the validator behind spirv-val)
// before any driver sees them: a plan is untrusted input, and drivers' shader compilers
// crash on malformed modules (issue 12: one to four flipped bytes crashed lavapipe).
#ifndef KILN_RUNTIME_PLAN_SPIRV_CHECK_H
#define KILN_RUNTIME_PLAN_SPIRV_CHECK_H

#include "base/status.h"

#include <cstddef>
#include <cstdint>
#include <spirv-tools/libspirv.h>
#include <string>

namespace kiln::rt {

/// OK, or INVALID_ARGUMENT naming `path` and the validator's first diagnostic, under
/// the rules of the oldest Vulkan that runs the module's SPIR-V version (1.0..1.3:
/// Vulkan 1.1, what the compiler targets; 1.4, 1.5: 1.2; 1.6: 1.3, the matrix-unit
/// kernels').
Status validateSpirv(const uint32_t *words, size_t count, const std::string &path);

/// That Vulkan version (VK_API_VERSION_1_x) of a module with a header; 0 past 1.6.
uint32_t vulkanVersionOf(const uint32_t *words, size_t count);
/// SPIRV-Tools' environment for that Vulkan version (the validator's and the
/// robust-access pass's).
spv_target_env spirvEnvironmentOf(uint32_t vulkanVersion);

/// Whether the module declares OpCapability `capability`.
bool declaresCapability(const uint32_t *words, size_t count, uint32_t capability);
constexpr uint32_t kCapabilityFloat16 = 9;
constexpr uint32_t kCapabilityCooperativeMatrixNV = 5357;

} // namespace kiln::rt

#endif // KILN_RUNTIME_PLAN_SPIRV_CHECK_H
