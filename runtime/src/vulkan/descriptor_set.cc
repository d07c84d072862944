#include "vulkan/descriptor_set.h"

#include "vulkan/status_util.h"

namespace kiln::rt::vk {

Status DescriptorSets::create(VkDevice device, const std::vector<VkDescriptorSetLayout> &layouts,
                              uint32_t storageDescriptors, uint32_t uniformDescriptors) {
  device_ = device;
  if (layouts.empty())
    return okStatus();
  std::vector<VkDescriptorPoolSize> sizes;
  if (storageDescriptors)
    sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, storageDescriptors});
  if (uniformDescriptors)
    sizes.push_back({VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, uniformDescriptors});
  if (sizes.empty()) // a pool needs one size entry even when every set is empty
    sizes.push_back({VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1});
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = static_cast<uint32_t>(layouts.size());
  poolInfo.poolSizeCount = static_cast<uint32_t>(sizes.size());
  poolInfo.pPoolSizes = sizes.data();
  KILN_VK_RETURN_IF_ERROR(vkCreateDescriptorPool(device_, &poolInfo, nullptr, &pool_));

  sets_.resize(layouts.size());
  VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  info.descriptorPool = pool_;
  info.descriptorSetCount = static_cast<uint32_t>(layouts.size());
  info.pSetLayouts = layouts.data();
  return vkStatus(vkAllocateDescriptorSets(device_, &info, sets_.data()), "vkAllocateDescriptorSets");
}

void DescriptorSets::writeBuffer(size_t index, uint32_t binding, VkDescriptorType type,
                                 VkBuffer buffer, VkDeviceSize offset, VkDeviceSize range) {
  VkDescriptorBufferInfo bufferInfo{buffer, offset, range};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = sets_[index];
  write.dstBinding = binding;
  write.descriptorCount = 1;
  write.descriptorType = type;
  write.pBufferInfo = &bufferInfo;
  vkUpdateDescriptorSets(device_, 1, &write, 0, nullptr);
}

void DescriptorSets::destroy() {
  if (pool_ != VK_NULL_HANDLE)
    vkDestroyDescriptorPool(device_, pool_, nullptr); // frees the sets too
  pool_ = VK_NULL_HANDLE;
  sets_.clear();
}

} // namespace kiln::rt::vk
