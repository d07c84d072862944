#include "vulkan/instance.h"

#include "vulkan/status_util.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace kiln::rt::vk {

namespace {

bool layerHasExtension(const char *layer, const char *extension) {
  uint32_t count = 0;
  if (vkEnumerateInstanceExtensionProperties(layer, &count, nullptr) != VK_SUCCESS)
    return false;
  std::vector<VkExtensionProperties> properties(count);
  vkEnumerateInstanceExtensionProperties(layer, &count, properties.data());
  for (const VkExtensionProperties &p : properties)
    if (std::strcmp(p.extensionName, extension) == 0)
      return true;
  return false;
}

} // namespace

VKAPI_ATTR VkBool32 VKAPI_CALL Instance::onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                   void *self) {
  const bool error = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  if (error)
    ++static_cast<Instance *>(self)->validationErrors_;
  std::fprintf(stderr, "kiln: vulkan validation %s: %s\n", error ? "error" : "warning",
               data && data->pMessage ? data->pMessage : "(no message)");
  return VK_FALSE;
}

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

  const char *kValidation = "VK_LAYER_KHRONOS_validation";
  std::vector<const char *> layers, extensions;
  if (enableValidation) {
    uint32_t count = 0;
    vkEnumerateInstanceLayerProperties(&count, nullptr);
    std::vector<VkLayerProperties> available(count);
    vkEnumerateInstanceLayerProperties(&count, available.data());
    for (const auto &layer : available)
      if (std::strcmp(layer.layerName, kValidation) == 0)
        layers.push_back(kValidation);
  }
  const bool validating = !layers.empty();
  const bool messages = validating && (layerHasExtension(kValidation, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
                                       layerHasExtension(nullptr, VK_EXT_DEBUG_UTILS_EXTENSION_NAME));
  const bool features =
      validating && layerHasExtension(kValidation, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  if (messages)
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  // Hazards between dispatches are what a missing barrier would cause.
  const VkValidationFeatureEnableEXT enables[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT validationFeatures{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  validationFeatures.enabledValidationFeatureCount = 1;
  validationFeatures.pEnabledValidationFeatures = enables;

  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  if (features) {
    extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    info.pNext = &validationFeatures;
  }
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VkResult result = vkCreateInstance(&info, nullptr, &instance_);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
    return unavailable("no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER)");
  KILN_RETURN_IF_ERROR(vkStatus(result, "vkCreateInstance"));
  if (messages) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    VkDebugUtilsMessengerCreateInfoEXT messenger{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    messenger.pfnUserCallback = &Instance::onMessage;
    messenger.pUserData = this;
    if (create)
      KILN_RETURN_IF_ERROR(vkStatus(create(instance_, &messenger, nullptr, &messenger_),
                                    "vkCreateDebugUtilsMessengerEXT"));
  }
  return okStatus();
}

void Instance::destroy() {
  if (messenger_ != VK_NULL_HANDLE) {
    auto destroyMessenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroyMessenger)
      destroyMessenger(instance_, messenger_, nullptr);
    messenger_ = VK_NULL_HANDLE;
  }
  if (instance_ != VK_NULL_HANDLE)
    vkDestroyInstance(instance_, nullptr);
  instance_ = VK_NULL_HANDLE;
}

} // namespace kiln::rt::vk
