// The one place a VkResult becomes a Status: the code says what kind of failure it is
// (out of memory -> RESOURCE_EXHAUSTED, missing driver/feature -> UNAVAILABLE, device
// lost and the rest -> INTERNAL), the message names the Vulkan call and the result.
#ifndef KILN_RUNTIME_VULKAN_STATUS_UTIL_H
#define KILN_RUNTIME_VULKAN_STATUS_UTIL_H

#include "base/status.h"

#include <vulkan/vulkan.h>

namespace kiln::rt::vk {

const char *resultName(VkResult result);
/// OK for VK_SUCCESS (and the other non-negative results); else "<call>: <VK_ERROR_...>".
Status vkStatus(VkResult result, const char *call);

} // namespace kiln::rt::vk

#define KILN_VK_RETURN_IF_ERROR(call) KILN_RETURN_IF_ERROR(::kiln::rt::vk::vkStatus((call), #call))

#endif // KILN_RUNTIME_VULKAN_STATUS_UTIL_H
