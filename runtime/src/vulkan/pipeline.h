// A compute pipeline with its descriptor-set layout (set 0) and pipeline layout.
#ifndef KILN_RUNTIME_VULKAN_PIPELINE_H
#define KILN_RUNTIME_VULKAN_PIPELINE_H

#include "base/status.h"

#include <string>
#include <vector>
#include <vulkan/vulkan.h>

namespace kiln::rt::vk {

struct PipelineDescription {
  VkShaderModule module = VK_NULL_HANDLE;
  std::string entryPoint;
  std::vector<VkDescriptorSetLayoutBinding> bindings;
  uint32_t pushConstantBytes = 0;
  uint32_t requiredSubgroupSize = 0; // 0: the device's default
};

class Pipeline {
public:
  Pipeline() = default;
  Pipeline(const Pipeline &) = delete;
  Pipeline &operator=(const Pipeline &) = delete;
  ~Pipeline() { destroy(); }

  Status create(VkDevice device, const PipelineDescription &description);
  void destroy();

  VkPipeline handle() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }
  VkDescriptorSetLayout setLayout() const { return setLayout_; }

private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

} // namespace kiln::rt::vk

#endif // KILN_RUNTIME_VULKAN_PIPELINE_H
