#include "vulkan/device.h"

#include "vulkan/status_util.h"

#include <cstring>
#include <vector>

namespace kiln::rt::vk {

Status Device::create(const PhysicalDevice &physical) {
  physical_ = physical;
  if (physical.computeQueueFamily == UINT32_MAX)
    return unavailable("device '" + physical.name + "' has no compute queue");

  // Query what is offered, then enable only the features kernels may use.
  VkPhysicalDeviceVulkan13Features offered13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features offered12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features offered11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceFeatures2 offered{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  const bool has12 = physical.apiVersion >= VK_API_VERSION_1_2;
  const bool has13 = physical.apiVersion >= VK_API_VERSION_1_3;
  // Conditional rendering, where offered, skips a submission's steps after a stop token.
  const bool conditional = physical.conditionalRendering;
  if (has12) {
    offered.pNext = &offered11;
    offered11.pNext = &offered12;
    if (has13)
      offered12.pNext = &offered13;
    vkGetPhysicalDeviceFeatures2(physical.handle, &offered);
  } else {
    vkGetPhysicalDeviceFeatures(physical.handle, &offered.features);
  }

  VkPhysicalDeviceVulkan13Features enable13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features enable12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features enable11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceFeatures2 enable{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  enable.features.shaderInt16 = offered.features.shaderInt16;
  enable.features.shaderInt64 = offered.features.shaderInt64;
  if (has12) {
    enable.pNext = &enable11;
    enable11.pNext = &enable12;
    enable11.storageBuffer16BitAccess = offered11.storageBuffer16BitAccess;
    enable11.uniformAndStorageBuffer16BitAccess = offered11.uniformAndStorageBuffer16BitAccess;
    enable12.shaderFloat16 = offered12.shaderFloat16;
    enable12.shaderInt8 = offered12.shaderInt8;
    enable12.storageBuffer8BitAccess = offered12.storageBuffer8BitAccess;
    enable12.uniformAndStorageBuffer8BitAccess = offered12.uniformAndStorageBuffer8BitAccess;
    enable12.hostQueryReset = offered12.hostQueryReset;
    if (has13) {
      enable12.pNext = &enable13;
      enable13.subgroupSizeControl = offered13.subgroupSizeControl;
      enable13.computeFullSubgroups = offered13.computeFullSubgroups;
    }
  }

  VkPhysicalDeviceConditionalRenderingFeaturesEXT enableConditional{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CONDITIONAL_RENDERING_FEATURES_EXT};
  if (conditional) {
    enableConditional.conditionalRendering = VK_TRUE;
    enableConditional.pNext = enable.pNext;
    enable.pNext = &enableConditional;
  }

  // Cooperative matrices, where offered, for the kernels that run on them (the
  // plan verifier refuses those kernels elsewhere).
  VkPhysicalDeviceCooperativeMatrixFeaturesNV enableCooperative{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  if (physical.limits.cooperativeMatrixNV) {
    enableCooperative.cooperativeMatrix = VK_TRUE;
    enableCooperative.pNext = enable.pNext;
    enable.pNext = &enableCooperative;
  }
  std::vector<const char *> extensions;
  if (conditional)
    extensions.push_back(VK_EXT_CONDITIONAL_RENDERING_EXTENSION_NAME);
  if (physical.limits.cooperativeMatrixNV)
    extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = physical.computeQueueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;

  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queueInfo;
  if (has12)
    info.pNext = &enable;
  else
    info.pEnabledFeatures = &enable.features;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  KILN_VK_RETURN_IF_ERROR(vkCreateDevice(physical.handle, &info, nullptr, &device_));
  vkGetDeviceQueue(device_, physical.computeQueueFamily, 0, &queue_);
  if (conditional) {
    beginConditional_ = reinterpret_cast<PFN_vkCmdBeginConditionalRenderingEXT>(
        vkGetDeviceProcAddr(device_, "vkCmdBeginConditionalRenderingEXT"));
    endConditional_ = reinterpret_cast<PFN_vkCmdEndConditionalRenderingEXT>(
        vkGetDeviceProcAddr(device_, "vkCmdEndConditionalRenderingEXT"));
    if (!beginConditional_ || !endConditional_)
      beginConditional_ = nullptr, endConditional_ = nullptr;
  }
  return okStatus();
}

void Device::beginConditional(VkCommandBuffer cb, VkBuffer buffer, uint64_t offset) const {
  VkConditionalRenderingBeginInfoEXT info{VK_STRUCTURE_TYPE_CONDITIONAL_RENDERING_BEGIN_INFO_EXT};
  info.buffer = buffer;
  info.offset = offset;
  beginConditional_(cb, &info);
}

void Device::endConditional(VkCommandBuffer cb) const { endConditional_(cb); }

Status Device::waitIdle() const {
  if (device_ == VK_NULL_HANDLE)
    return okStatus();
  return vkStatus(vkDeviceWaitIdle(device_), "vkDeviceWaitIdle");
}

void Device::destroy() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);
    vkDestroyDevice(device_, nullptr);
  }
  device_ = VK_NULL_HANDLE;
  queue_ = VK_NULL_HANDLE;
  beginConditional_ = nullptr;
  endConditional_ = nullptr;
}

} // namespace kiln::rt::vk
