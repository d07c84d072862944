// VkShaderModule from SPIR-V words.
#ifndef KILN_RUNTIME_VULKAN_SHADER_MODULE_H
#define KILN_RUNTIME_VULKAN_SHADER_MODULE_H

#include "base/status.h"

#include <vulkan/vulkan.h>

namespace kiln::rt::vk {

class ShaderModule {
public:
  ShaderModule() = default;
  ShaderModule(const ShaderModule &) = delete;
  ShaderModule &operator=(const ShaderModule &) = delete;
  ~ShaderModule() { destroy(); }

  Status create(VkDevice device, const uint32_t *words, size_t wordCount);
  void destroy();
  VkShaderModule handle() const { return module_; }

private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkShaderModule module_ = VK_NULL_HANDLE;
};

} // namespace kiln::rt::vk

#endif // KILN_RUNTIME_VULKAN_SHADER_MODULE_H
