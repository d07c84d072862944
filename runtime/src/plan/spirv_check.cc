#include "plan/spirv_check.h"

#include <spirv-tools/libspirv.h>
#include <vulkan/vulkan_core.h>

namespace kiln::rt {

uint32_t vulkanVersionOf(const uint32_t *words, size_t count) {
  if (count < 5)
    return 0;
  const uint32_t version = words[1];
  if (version <= 0x00010300u)
    return VK_API_VERSION_1_1;
  if (version <= 0x00010500u)
    return VK_API_VERSION_1_2;
  if (version == 0x00010600u)
    return VK_API_VERSION_1_3;
  return 0;
}

spv_target_env spirvEnvironmentOf(uint32_t vulkanVersion) {
  if (vulkanVersion == VK_API_VERSION_1_3)
    return SPV_ENV_VULKAN_1_3;
  if (vulkanVersion == VK_API_VERSION_1_2)
    return SPV_ENV_VULKAN_1_2;
  return SPV_ENV_VULKAN_1_1;
}

bool declaresCapability(const uint32_t *words, size_t count, uint32_t capability) {
  for (size_t i = 5; i < count;) {
    const uint32_t length = words[i] >> 16, opcode = words[i] & 0xffffu;
    if (length == 0)
      return false;
    if (opcode == 17 /*OpCapability*/ && length == 2 && i + 1 < count &&
        words[i + 1] == capability)
      return true;
    // OpCapability and OpExtension lead the module: stop at the memory model.
    if (opcode == 14 /*OpMemoryModel*/)
      return false;
    i += length;
  }
  return false;
}

Status validateSpirv(const uint32_t *words, size_t count, const std::string &path) {
  const uint32_t vulkan = vulkanVersionOf(words, count);
  if (vulkan == 0)
    return invalidArgument("plan " + path + ": SPIR-V header missing or of a version past 1.6");
  spv_context context = spvContextCreate(spirvEnvironmentOf(vulkan));
  if (!context)
    return internalError("plan " + path + ": cannot create a SPIR-V validator context");
  spv_const_binary_t binary{words, count};
  spv_diagnostic diagnostic = nullptr;
  const spv_result_t result = spvValidate(context, &binary, &diagnostic);
  std::string why;
  if (result != SPV_SUCCESS)
    why = diagnostic && diagnostic->error ? diagnostic->error : "rejected without a message";
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  if (result != SPV_SUCCESS)
    return invalidArgument("plan " + path + ": SPIR-V fails validation (Vulkan 1." +
                           std::to_string(VK_API_VERSION_MINOR(vulkan)) + " rules): " + why);
  return okStatus();
}

} // namespace kiln::rt
