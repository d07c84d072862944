#include "vulkan/fence.h"

#include "vulkan/status_util.h"

#include <chrono>

namespace kiln::rt::vk {

Status Fence::create(VkDevice device) {
  device_ = device;
  VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  return vkStatus(vkCreateFence(device_, &info, nullptr, &fence_), "vkCreateFence");
}

Status Fence::waitAndReset(uint64_t timeoutNs) {
  VkResult result = vkWaitForFences(device_, 1, &fence_, VK_TRUE, timeoutNs);
  if (result == VK_TIMEOUT)
    return internalError("vkWaitForFences: the device did not finish within " +
                         std::to_string(timeoutNs / 1000000000ull) + " s");
  KILN_RETURN_IF_ERROR(vkStatus(result, "vkWaitForFences"));
  return vkStatus(vkResetFences(device_, 1, &fence_), "vkResetFences");
}

Status Fence::spinAndReset(uint64_t timeoutNs) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeoutNs);
  for (;;) {
    VkResult result = vkGetFenceStatus(device_, fence_);
    if (result == VK_SUCCESS)
      break;
    if (result != VK_NOT_READY)
      return vkStatus(result, "vkGetFenceStatus");
    if (std::chrono::steady_clock::now() > deadline)
      return internalError("vkGetFenceStatus: the device did not finish within " +
                           std::to_string(timeoutNs / 1000000000ull) + " s");
  }
  return vkStatus(vkResetFences(device_, 1, &fence_), "vkResetFences");
}

void Fence::destroy() {
  if (fence_ != VK_NULL_HANDLE)
    vkDestroyFence(device_, fence_, nullptr);
  fence_ = VK_NULL_HANDLE;
}

} // namespace kiln::rt::vk
