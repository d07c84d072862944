// A VkFence signalled by a submission; waited on before the next one, because a
// recorded command buffer must not be pending while its inputs change.
#ifndef KILN_RUNTIME_VULKAN_FENCE_H
#define KILN_RUNTIME_VULKAN_FENCE_H

#include "base/status.h"

#include <vulkan/vulkan.h>

namespace kiln::rt::vk {

class Fence {
public:
  Fence() = default;
  Fence(const Fence &) = delete;
  Fence &operator=(const Fence &) = delete;
  ~Fence() { destroy(); }

  Status create(VkDevice device);
  void destroy();
  /// Waits (bounded: a hung device becomes a status, not a hang) and resets.
  Status waitAndReset(uint64_t timeoutNs);
  /// The same by polling the fence's status: no sleep and wake-up in the driver, at
  /// the price of a busy host thread.
  Status spinAndReset(uint64_t timeoutNs);
  VkFence handle() const { return fence_; }

private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
};

} // namespace kiln::rt::vk

#endif // KILN_RUNTIME_VULKAN_FENCE_H
