// C entry points of the instance and device enumeration.
#include "api/handles.h"

#include "vulkan/physical_device.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace kiln::rt;

namespace {

kiln_device_type_t deviceType(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return KILN_DEVICE_TYPE_INTEGRATED_GPU;
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return KILN_DEVICE_TYPE_DISCRETE_GPU;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return KILN_DEVICE_TYPE_VIRTUAL_GPU;
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return KILN_DEVICE_TYPE_CPU;
  default: return KILN_DEVICE_TYPE_OTHER;
  }
}

void describe(const vk::PhysicalDevice &device, kiln_device_info_t &out) {
  out = kiln_device_info_t();
  out.index = device.index;
  std::strncpy(out.name, device.name.c_str(), sizeof(out.name) - 1);
  out.type = deviceType(device.type);
  out.vendor_id = device.vendorId;
  out.api_version = device.apiVersion;
  out.subgroup_size = device.limits.subgroupSize;
  out.max_workgroup_invocations = device.limits.maxWorkgroupInvocations;
  for (int i = 0; i < 3; ++i)
    out.max_workgroup_size[i] = device.limits.maxWorkgroupSize[i];
  out.max_push_constant_bytes = device.limits.maxPushConstantBytes;
  out.device_local_bytes = device.deviceLocalBytes;
  out.conditional_rendering = device.conditionalRendering ? 1 : 0;
}

} // namespace

extern "C" {

kiln_status_t kiln_enumerate_devices(kiln_device_info_t *out_devices, size_t capacity,
                                     size_t *out_count) {
  if (!out_count || (capacity && !out_devices))
    return toCStatus(invalidArgument("kiln_enumerate_devices: out_count is null, or out_devices "
                                     "is null with a non-zero capacity"));
  vk::Instance instance;
  Status status = instance.create(/*enableValidation=*/false);
  if (!status.ok())
    return toCStatus(status);
  std::vector<vk::PhysicalDevice> devices;
  status = vk::enumeratePhysicalDevices(instance.handle(), devices);
  if (!status.ok())
    return toCStatus(status);
  for (size_t i = 0; i < devices.size() && i < capacity; ++i)
    describe(devices[i], out_devices[i]);
  *out_count = devices.size();
  return nullptr;
}

void kiln_instance_options_init(kiln_instance_options_t *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof(*options));
  options->device_index = -1;
  options->device_name = nullptr;
  options->enable_validation = 0;
}

kiln_status_t kiln_instance_create(const kiln_instance_options_t *options,
                                   kiln_instance_t **out_instance) {
  if (!out_instance)
    return toCStatus(invalidArgument("kiln_instance_create: out_instance is null"));
  kiln_instance_options_t defaults;
  kiln_instance_options_init(&defaults);
  if (!options)
    options = &defaults;
  Ref<kiln_instance_s> instance = Ref<kiln_instance_s>::adopt(new (std::nothrow) kiln_instance_s());
  if (!instance)
    return toCStatus(resourceExhausted("out of host memory"));
  Status status = instance->vulkan.create(options->enable_validation != 0);
  if (!status.ok())
    return toCStatus(status.withContext("instance"));
  std::vector<vk::PhysicalDevice> devices;
  status = vk::enumeratePhysicalDevices(instance->vulkan.handle(), devices);
  if (!status.ok())
    return toCStatus(status.withContext("instance"));
  size_t chosen = 0;
  status = vk::choosePhysicalDevice(devices, options->device_index,
                                    options->device_name ? options->device_name : "",
                                    std::getenv("KILN_DEVICE"), chosen);
  if (!status.ok())
    return toCStatus(status.withContext("instance"));
  status = instance->device.create(devices[chosen]);
  if (!status.ok())
    return toCStatus(status.withContext("instance: device '" + devices[chosen].name + "'"));
  *out_instance = instance.detach();
  return nullptr;
}

kiln_status_t kiln_instance_device_info(const kiln_instance_t *instance, kiln_device_info_t *out_info) {
  if (!instance || !out_info)
    return toCStatus(invalidArgument("kiln_instance_device_info: null argument"));
  describe(instance->device.physical(), *out_info);
  return nullptr;
}

void kiln_instance_retain(kiln_instance_t *instance) {
  if (instance)
    instance->retain();
}

void kiln_instance_release(kiln_instance_t *instance) {
  if (instance)
    instance->release();
}

} // extern "C"
