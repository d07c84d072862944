#include "vulkan/instance.h"

#include "vulkan/status_util.h"

#include <cstring>
#include <vector>

namespace kiln::rt::vk {

Status Instance::create(bool enableValidation) {
  uint32_t loaderVersion = VK_API_VERSION_1_0;
  auto enumerateVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
  if (enumerateVersion)
    enumerateVersion(&loaderVersion);
  if (loaderVersion < VK_API_VERSION_1_1)
    return unavailable("the Vulkan loader supports only 1.0; Kiln needs 1.1 or later");
  // Ask for the newest API we use; devices may offer less (checked per device).
  apiVersion_ = loaderVersion >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : loaderVersion;

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "kiln";
  app.pEngineName = "kiln-runtime";
  app.apiVersion = apiVersion_;

  std::vector<const char *> layers;
  if (enableValidation) {
    uint32_t count = 0;
    vkEnumerateInstanceLayerProperties(&count, nullptr);
    std::vector<VkLayerProperties> available(count);
    vkEnumerateInstanceLayerProperties(&count, available.data());
    for (const auto &layer : available)
      if (std::strcmp(layer.layerName, "VK_LAYER_KHRONOS_validation") == 0)
        layers.push_back("VK_LAYER_KHRONOS_validation");
  }

  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  VkResult result = vkCreateInstance(&info, nullptr, &instance_);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
    return unavailable("no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER)");
  return vkStatus(result, "vkCreateInstance");
}

void Instance::destroy() {
  if (instance_ != VK_NULL_HANDLE)
    vkDestroyInstance(instance_, nullptr);
  instance_ = VK_NULL_HANDLE;
}

} // namespace kiln::rt::vk
