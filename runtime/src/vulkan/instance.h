// VkInstance: loads the driver (Vulkan 1.1 or later, for subgroup properties), with the
// Khronos validation layer when asked and present.
#ifndef KILN_RUNTIME_VULKAN_INSTANCE_H
#define KILN_RUNTIME_VULKAN_INSTANCE_H

#include "base/status.h"

#include <vulkan/vulkan.h>

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

private:
  VkInstance instance_ = VK_NULL_HANDLE;
  uint32_t apiVersion_ = 0;
};

} // namespace kiln::rt::vk

#endif // KILN_RUNTIME_VULKAN_INSTANCE_H
