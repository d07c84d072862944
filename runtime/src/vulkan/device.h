// VkDevice with one compute queue. Enables the optional features compiled kernels use
// (16-bit and 8-bit storage and arithmetic, int64, subgroup size control) where the
// device offers them; a kernel needing one the device lacks fails at pipeline creation
// with a status, not here.
#ifndef KILN_RUNTIME_VULKAN_DEVICE_H
#define KILN_RUNTIME_VULKAN_DEVICE_H

#include "vulkan/physical_device.h"

namespace kiln::rt::vk {

class Device {
public:
  Device() = default;
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;
  ~Device() { destroy(); }

  Status create(const PhysicalDevice &physical);
  void destroy();
  /// Waits for all work; used before destroying anything the device may still use.
  Status waitIdle() const;

  VkDevice handle() const { return device_; }
  VkQueue queue() const { return queue_; }
  const PhysicalDevice &physical() const { return physical_; }
  uint32_t queueFamily() const { return physical_.computeQueueFamily; }
  /// VK_EXT_conditional_rendering is enabled: dispatches can run only while a
  /// buffer word is nonzero (a stop token inside a submission, docs/runtime.md).
  bool conditionalRendering() const { return beginConditional_ != nullptr; }
  void beginConditional(VkCommandBuffer cb, VkBuffer buffer, uint64_t offset) const;
  void endConditional(VkCommandBuffer cb) const;

private:
  PFN_vkCmdBeginConditionalRenderingEXT beginConditional_ = nullptr;
  PFN_vkCmdEndConditionalRenderingEXT endConditional_ = nullptr;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  PhysicalDevice physical_;
};

} // namespace kiln::rt::vk

#endif // KILN_RUNTIME_VULKAN_DEVICE_H
