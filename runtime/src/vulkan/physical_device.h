// Physical devices: enumeration, description (limits, queues, memory) and the device
// choice rule: option index, option name, env KILN_DEVICE (index or name substring),
// first discrete GPU, other GPUs, CPU devices (lavapipe) last.
#ifndef KILN_RUNTIME_VULKAN_PHYSICAL_DEVICE_H
#define KILN_RUNTIME_VULKAN_PHYSICAL_DEVICE_H

#include "base/status.h"
#include "plan/device_limits.h"

#include <string>
#include <vector>
#include <vulkan/vulkan.h>

namespace kiln::rt::vk {

struct PhysicalDevice {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  uint32_t index = 0;
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  uint32_t vendorId = 0;
  uint32_t apiVersion = 0;
  DeviceLimits limits;
  uint32_t computeQueueFamily = UINT32_MAX; // UINT32_MAX: no compute queue
  uint32_t timestampValidBits = 0;
  float timestampPeriodNs = 0;
  uint64_t deviceLocalBytes = 0;
  VkPhysicalDeviceMemoryProperties memory{};
  /// VK_EXT_conditional_rendering with its conditionalRendering feature
  /// (Vulkan 1.2 devices only): a stop token can skip the rest of a
  /// submission's work on the device.
  bool conditionalRendering = false;
};

/// Describes every device the instance sees.
Status enumeratePhysicalDevices(VkInstance instance, std::vector<PhysicalDevice> &out);

/// Picks a device (see the file comment). `index` < 0 and empty `name` mean "not set";
/// `environment` is KILN_DEVICE's value or null. Only devices with a compute queue count.
Status choosePhysicalDevice(const std::vector<PhysicalDevice> &devices, int32_t index,
                            const std::string &name, const char *environment,
                            size_t &chosen);

} // namespace kiln::rt::vk

#endif // KILN_RUNTIME_VULKAN_PHYSICAL_DEVICE_H
