#include "vulkan/shader_module.h"

#include "vulkan/status_util.h"

namespace kiln::rt::vk {

Status ShaderModule::create(VkDevice device, const uint32_t *words, size_t wordCount) {
  device_ = device;
  // The SPIR-V magic number; a driver may crash on garbage instead of failing.
  if (wordCount < 5 || words[0] != 0x07230203u)
    return invalidArgument("spirv is not a SPIR-V module (bad magic or shorter than its header)");
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = wordCount * sizeof(uint32_t);
  info.pCode = words;
  return vkStatus(vkCreateShaderModule(device_, &info, nullptr, &module_), "vkCreateShaderModule");
}

void ShaderModule::destroy() {
  if (module_ != VK_NULL_HANDLE)
    vkDestroyShaderModule(device_, module_, nullptr);
  module_ = VK_NULL_HANDLE;
}

} // namespace kiln::rt::vk
