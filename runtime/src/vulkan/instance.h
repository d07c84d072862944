// VkInstance: loads the driver (Vulkan 1.1 or later, for subgroup properties), with the
// Khronos validation layer when asked and present: synchronization validation on, and its
// errors and warnings written to stderr ("kiln: vulkan validation error: ...").
#ifndef KILN_RUNTIME_VULKAN_INSTANCE_H
#define KILN_RUNTIME_VULKAN_INSTANCE_H

#include "base/status.h"

#include <vulkan/vulkan.h>

#include <atomic>

namespace kiln::rt::vk {

class Instance {
public:
  Instance() = default;
  Instance(const Instance &) = delete;
  Instance &operator=(const Instance &) = delete;
  ~Instance() { destroy(); }

  Status create(bool enableValidation);
  void destroy();
  VkInstance handle() const { return instance_; }
  uint32_t apiVersion() const { return apiVersion_; }

  /// Errors the validation layer reported so far (0 without the layer).
  uint32_t validationErrors() const { return validationErrors_.load(); }

private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL
  onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT type,
            const VkDebugUtilsMessengerCallbackDataEXT *data, void *self);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  uint32_t apiVersion_ = 0;
  std::atomic<uint32_t> validationErrors_{0};
};

} // namespace kiln::rt::vk

#endif // KILN_RUNTIME_VULKAN_INSTANCE_H
