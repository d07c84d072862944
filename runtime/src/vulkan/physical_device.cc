#include "vulkan/physical_device.h"

#include "vulkan/status_util.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace kiln::rt::vk {
namespace {

bool offersExtension(VkPhysicalDevice handle, const char *name) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(handle, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(handle, nullptr, &count, extensions.data());
  for (const VkExtensionProperties &extension : extensions)
    if (std::strcmp(extension.extensionName, name) == 0)
      return true;
  return false;
}

bool offersConditionalRendering(VkPhysicalDevice handle, uint32_t apiVersion) {
  if (apiVersion < VK_API_VERSION_1_2)
    return false;
  if (!offersExtension(handle, VK_EXT_CONDITIONAL_RENDERING_EXTENSION_NAME))
    return false;
  VkPhysicalDeviceConditionalRenderingFeaturesEXT conditional{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CONDITIONAL_RENDERING_FEATURES_EXT};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &conditional;
  vkGetPhysicalDeviceFeatures2(handle, &features);
  return conditional.conditionalRendering == VK_TRUE;
}

/// VK_NV_cooperative_matrix with its feature and the subgroup-scope 16 x 8 x 16
/// f16 x f16 + f32 shape (DeviceLimits::cooperativeMatrixNV), on a Vulkan 1.3
/// device (the kernels are SPIR-V 1.6).
bool offersCooperativeMatrixNV(VkInstance instance, VkPhysicalDevice handle, uint32_t apiVersion) {
  if (apiVersion < VK_API_VERSION_1_3 ||
      !offersExtension(handle, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME))
    return false;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cooperative{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &cooperative;
  vkGetPhysicalDeviceFeatures2(handle, &features);
  auto shapes = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  if (!cooperative.cooperativeMatrix || !shapes)
    return false;
  uint32_t count = 0;
  if (shapes(handle, &count, nullptr) != VK_SUCCESS)
    return false;
  std::vector<VkCooperativeMatrixPropertiesNV> offered(
      count, VkCooperativeMatrixPropertiesNV{VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
  if (shapes(handle, &count, offered.data()) != VK_SUCCESS)
    return false;
  for (const VkCooperativeMatrixPropertiesNV &shape : offered)
    if (shape.MSize == 16 && shape.NSize == 8 && shape.KSize == 16 &&
        shape.AType == VK_COMPONENT_TYPE_FLOAT16_NV && shape.BType == VK_COMPONENT_TYPE_FLOAT16_NV &&
        shape.CType == VK_COMPONENT_TYPE_FLOAT32_NV && shape.DType == VK_COMPONENT_TYPE_FLOAT32_NV &&
        shape.scope == VK_SCOPE_SUBGROUP_NV)
      return true;
  return false;
}

PhysicalDevice describe(VkInstance instance, VkPhysicalDevice handle, uint32_t index) {
  PhysicalDevice device;
  device.handle = handle;
  device.index = index;

  VkPhysicalDeviceSubgroupSizeControlProperties sizeControl{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceProperties basic;
  vkGetPhysicalDeviceProperties(handle, &basic);
  const bool hasVulkan13 = basic.apiVersion >= VK_API_VERSION_1_3;
  properties.pNext = &subgroup;
  if (hasVulkan13)
    subgroup.pNext = &sizeControl;
  vkGetPhysicalDeviceProperties2(handle, &properties);
  const VkPhysicalDeviceLimits &limits = properties.properties.limits;

  device.name = properties.properties.deviceName;
  device.type = properties.properties.deviceType;
  device.vendorId = properties.properties.vendorID;
  device.apiVersion = properties.properties.apiVersion;
  DeviceLimits &out = device.limits;
  for (int i = 0; i < 3; ++i) {
    out.maxWorkgroupSize[i] = limits.maxComputeWorkGroupSize[i];
    out.maxWorkgroupCount[i] = limits.maxComputeWorkGroupCount[i];
  }
  out.maxWorkgroupInvocations = limits.maxComputeWorkGroupInvocations;
  out.maxPushConstantBytes = limits.maxPushConstantsSize;
  out.maxWorkgroupMemoryBytes = limits.maxComputeSharedMemorySize;
  out.minStorageBufferOffsetAlignment = limits.minStorageBufferOffsetAlignment;
  out.minUniformBufferOffsetAlignment = limits.minUniformBufferOffsetAlignment;
  out.maxStorageBufferRange = limits.maxStorageBufferRange;
  out.maxUniformBufferRange = limits.maxUniformBufferRange;
  out.maxPerStageStorageBuffers = limits.maxPerStageDescriptorStorageBuffers;
  out.maxPerStageUniformBuffers = limits.maxPerStageDescriptorUniformBuffers;
  out.subgroupSize = subgroup.subgroupSize;
  out.minSubgroupSize = out.maxSubgroupSize = subgroup.subgroupSize;
  if (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT)
    out.subgroupFeatures = subgroup.supportedOperations;
  if (hasVulkan13) {
    VkPhysicalDeviceVulkan13Features features13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &features13;
    vkGetPhysicalDeviceFeatures2(handle, &features);
    if (features13.subgroupSizeControl &&
        (sizeControl.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT)) {
      out.subgroupSizeControl = true;
      out.minSubgroupSize = sizeControl.minSubgroupSize;
      out.maxSubgroupSize = sizeControl.maxSubgroupSize;
    }
  }

  device.conditionalRendering = offersConditionalRendering(handle, device.apiVersion);
  out.apiVersion = device.apiVersion;
  if (device.apiVersion >= VK_API_VERSION_1_2) {
    VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &features12;
    vkGetPhysicalDeviceFeatures2(handle, &features);
    out.shaderFloat16 = features12.shaderFloat16 == VK_TRUE;
  }
  out.cooperativeMatrixNV = offersCooperativeMatrixNV(instance, handle, device.apiVersion);

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(handle, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(handle, &familyCount, families.data());
  // Prefer a compute-only family (async compute), else any family with compute.
  for (int pass = 0; pass < 2 && device.computeQueueFamily == UINT32_MAX; ++pass) {
    for (uint32_t i = 0; i < familyCount; ++i) {
      const VkQueueFlags flags = families[i].queueFlags;
      if (!(flags & VK_QUEUE_COMPUTE_BIT) || families[i].queueCount == 0)
        continue;
      if (pass == 0 && (flags & VK_QUEUE_GRAPHICS_BIT))
        continue;
      device.computeQueueFamily = i;
      device.timestampValidBits = families[i].timestampValidBits;
      break;
    }
  }
  device.timestampPeriodNs = limits.timestampPeriod;

  vkGetPhysicalDeviceMemoryProperties(handle, &device.memory);
  for (uint32_t i = 0; i < device.memory.memoryHeapCount; ++i)
    if (device.memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      device.deviceLocalBytes = std::max<uint64_t>(device.deviceLocalBytes,
                                                   device.memory.memoryHeaps[i].size);
  return device;
}

int typeRank(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
  case VK_PHYSICAL_DEVICE_TYPE_OTHER: return 3;
  default: return 4; // CPU (lavapipe) last
  }
}

bool parseIndex(const std::string &text, int32_t &out) {
  if (text.empty() || text.size() > 6 ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }))
    return false;
  out = static_cast<int32_t>(std::strtol(text.c_str(), nullptr, 10));
  return true;
}

Status byIndex(const std::vector<PhysicalDevice> &devices, int32_t index,
               const std::string &source, size_t &chosen) {
  if (index < 0 || static_cast<size_t>(index) >= devices.size())
    return notFound(source + ": device " + std::to_string(index) + " out of range (" +
                    std::to_string(devices.size()) + " Vulkan devices)");
  if (devices[index].computeQueueFamily == UINT32_MAX)
    return unavailable(source + ": device " + std::to_string(index) + " ('" +
                       devices[index].name + "') has no compute queue");
  chosen = static_cast<size_t>(index);
  return okStatus();
}

Status byName(const std::vector<PhysicalDevice> &devices, const std::string &name,
              const std::string &source, size_t &chosen) {
  for (size_t i = 0; i < devices.size(); ++i)
    if (devices[i].name.find(name) != std::string::npos &&
        devices[i].computeQueueFamily != UINT32_MAX) {
      chosen = i;
      return okStatus();
    }
  std::string names;
  for (const auto &device : devices)
    names += (names.empty() ? "'" : ", '") + device.name + "'";
  return notFound(source + ": no device named like '" + name + "' (devices: " + names + ")");
}

} // namespace

Status enumeratePhysicalDevices(VkInstance instance, std::vector<PhysicalDevice> &out) {
  uint32_t count = 0;
  KILN_RETURN_IF_ERROR(vkStatus(vkEnumeratePhysicalDevices(instance, &count, nullptr),
                                "vkEnumeratePhysicalDevices"));
  std::vector<VkPhysicalDevice> handles(count);
  KILN_RETURN_IF_ERROR(vkStatus(vkEnumeratePhysicalDevices(instance, &count, handles.data()),
                                "vkEnumeratePhysicalDevices"));
  out.clear();
  for (uint32_t i = 0; i < count; ++i)
    out.push_back(describe(instance, handles[i], i));
  return okStatus();
}

Status choosePhysicalDevice(const std::vector<PhysicalDevice> &devices, int32_t index,
                            const std::string &name, const char *environment,
                            size_t &chosen) {
  if (devices.empty())
    return unavailable("no Vulkan device found");
  if (index >= 0)
    return byIndex(devices, index, "device option", chosen);
  if (!name.empty())
    return byName(devices, name, "device option", chosen);
  if (environment && *environment) {
    int32_t envIndex = -1;
    if (parseIndex(environment, envIndex))
      return byIndex(devices, envIndex, "KILN_DEVICE", chosen);
    return byName(devices, environment, "KILN_DEVICE", chosen);
  }
  size_t best = devices.size();
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].computeQueueFamily == UINT32_MAX)
      continue;
    if (best == devices.size() || typeRank(devices[i].type) < typeRank(devices[best].type))
      best = i;
  }
  if (best == devices.size())
    return unavailable("no Vulkan device has a compute queue");
  chosen = best;
  return okStatus();
}

} // namespace kiln::rt::vk
