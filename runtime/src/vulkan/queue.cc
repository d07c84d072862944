#include "vulkan/queue.h"

#include "vulkan/status_util.h"

namespace kiln::rt::vk {

Status submit(VkQueue queue, VkCommandBuffer commands, VkFence fence) {
  VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  info.commandBufferCount = 1;
  info.pCommandBuffers = &commands;
  return vkStatus(vkQueueSubmit(queue, 1, &info, fence), "vkQueueSubmit");
}

} // namespace kiln::rt::vk
