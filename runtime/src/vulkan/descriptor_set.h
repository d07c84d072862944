// Descriptor sets: one pool sized for every kernel of a plan, one set per kernel,
// written once (buffers never move, so bindings never change).
#ifndef KILN_RUNTIME_VULKAN_DESCRIPTOR_SET_H
#define KILN_RUNTIME_VULKAN_DESCRIPTOR_SET_H

#include "base/status.h"

#include <vector>
#include <vulkan/vulkan.h>

namespace kiln::rt::vk {

class DescriptorSets {
public:
  DescriptorSets() = default;
  DescriptorSets(const DescriptorSets &) = delete;
  DescriptorSets &operator=(const DescriptorSets &) = delete;
  ~DescriptorSets() { destroy(); }

  /// A pool for `layouts.size()` sets holding the given descriptor counts, and the sets.
  Status create(VkDevice device, const std::vector<VkDescriptorSetLayout> &layouts,
                uint32_t storageDescriptors, uint32_t uniformDescriptors);
  void destroy();

  /// Writes one buffer binding of set `index`.
  void writeBuffer(size_t index, uint32_t binding, VkDescriptorType type, VkBuffer buffer,
                   VkDeviceSize offset, VkDeviceSize range);
  VkDescriptorSet set(size_t index) const { return sets_[index]; }

private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> sets_;
};

} // namespace kiln::rt::vk

#endif // KILN_RUNTIME_VULKAN_DESCRIPTOR_SET_H
