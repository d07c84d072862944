// A command pool with one primary command buffer, recorded once and replayed: the
// buffer is not ONE_TIME_SUBMIT, and the session waits for its fence before the next
// submission instead of re-recording.
#ifndef KILN_RUNTIME_VULKAN_COMMAND_BUFFER_H
#define KILN_RUNTIME_VULKAN_COMMAND_BUFFER_H

#include "base/status.h"

#include <vulkan/vulkan.h>

namespace kiln::rt::vk {

class CommandBuffer {
public:
  CommandBuffer() = default;
  CommandBuffer(const CommandBuffer &) = delete;
  CommandBuffer &operator=(const CommandBuffer &) = delete;
  ~CommandBuffer() { destroy(); }

  Status create(VkDevice device, uint32_t queueFamily);
  void destroy();

  Status begin(bool oneTimeSubmit);
  Status end();
  VkCommandBuffer handle() const { return buffer_; }

  /// A global memory barrier between the given stages/accesses.
  void barrier(VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
               VkPipelineStageFlags dstStage, VkAccessFlags dstAccess);

private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer buffer_ = VK_NULL_HANDLE;
};

} // namespace kiln::rt::vk

#endif // KILN_RUNTIME_VULKAN_COMMAND_BUFFER_H
