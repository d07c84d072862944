#include "vulkan/status_util.h"

#include <string>

namespace kiln::rt::vk {

const char *resultName(VkResult result) {
  switch (result) {
#define KILN_CASE(x) case x: return #x;
    KILN_CASE(VK_SUCCESS)
    KILN_CASE(VK_NOT_READY)
    KILN_CASE(VK_TIMEOUT)
    KILN_CASE(VK_INCOMPLETE)
    KILN_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    KILN_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    KILN_CASE(VK_ERROR_INITIALIZATION_FAILED)
    KILN_CASE(VK_ERROR_DEVICE_LOST)
    KILN_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    KILN_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    KILN_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    KILN_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    KILN_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    KILN_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    KILN_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    KILN_CASE(VK_ERROR_FRAGMENTED_POOL)
    KILN_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    KILN_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef KILN_CASE
  default:
    return "VK_ERROR_UNKNOWN";
  }
}

Status vkStatus(VkResult result, const char *call) {
  if (result >= 0)
    return okStatus();
  std::string message = std::string(call) + " failed: " + resultName(result) + " (" +
                        std::to_string(static_cast<int>(result)) + ")";
  switch (result) {
  case VK_ERROR_OUT_OF_HOST_MEMORY:
  case VK_ERROR_OUT_OF_DEVICE_MEMORY:
  case VK_ERROR_OUT_OF_POOL_MEMORY:
  case VK_ERROR_TOO_MANY_OBJECTS:
  case VK_ERROR_FRAGMENTED_POOL:
    return resourceExhausted(message);
  case VK_ERROR_INITIALIZATION_FAILED:
  case VK_ERROR_LAYER_NOT_PRESENT:
  case VK_ERROR_EXTENSION_NOT_PRESENT:
  case VK_ERROR_FEATURE_NOT_PRESENT:
  case VK_ERROR_INCOMPATIBLE_DRIVER:
    return unavailable(message);
  default:
    return internalError(message);
  }
}

} // namespace kiln::rt::vk
