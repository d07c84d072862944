#include "vulkan/command_buffer.h"

#include "vulkan/status_util.h"

namespace kiln::rt::vk {

Status CommandBuffer::create(VkDevice device, uint32_t queueFamily) {
  device_ = device;
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = queueFamily;
  KILN_VK_RETURN_IF_ERROR(vkCreateCommandPool(device_, &poolInfo, nullptr, &pool_));
  VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  info.commandPool = pool_;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  return vkStatus(vkAllocateCommandBuffers(device_, &info, &buffer_), "vkAllocateCommandBuffers");
}

Status CommandBuffer::begin(bool oneTimeSubmit) {
  VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  info.flags = oneTimeSubmit ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT : 0;
  return vkStatus(vkBeginCommandBuffer(buffer_, &info), "vkBeginCommandBuffer");
}

Status CommandBuffer::end() { return vkStatus(vkEndCommandBuffer(buffer_), "vkEndCommandBuffer"); }

void CommandBuffer::barrier(VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
                            VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
  VkMemoryBarrier memory{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  memory.srcAccessMask = srcAccess;
  memory.dstAccessMask = dstAccess;
  vkCmdPipelineBarrier(buffer_, srcStage, dstStage, 0, 1, &memory, 0, nullptr, 0, nullptr);
}

void CommandBuffer::destroy() {
  if (pool_ != VK_NULL_HANDLE)
    vkDestroyCommandPool(device_, pool_, nullptr); // frees the buffer too
  pool_ = VK_NULL_HANDLE;
  buffer_ = VK_NULL_HANDLE;
}

} // namespace kiln::rt::vk
