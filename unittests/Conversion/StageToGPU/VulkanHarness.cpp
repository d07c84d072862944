//===- VulkanHarness.cpp - Test-only: run one compute kernel --------------===//
#include "VulkanHarness.h"

#include <vulkan/vulkan.h>

#include <cstring>

namespace kiln::test {

struct VulkanHarness::State {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  std::string name;
  uint32_t subgroupSize = 0;
};

#define CHECK_VK(call, what)                                                   \
  do {                                                                         \
    VkResult _r = (call);                                                      \
    if (_r != VK_SUCCESS)                                                      \
      return std::string(what) + " failed: VkResult " + std::to_string(_r);    \
  } while (0)

std::unique_ptr<VulkanHarness> VulkanHarness::create(std::string &error) {
  auto harness = std::unique_ptr<VulkanHarness>(new VulkanHarness());
  harness->state = std::make_unique<State>();
  State &s = *harness->state;
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  if (vkCreateInstance(&info, nullptr, &s.instance) != VK_SUCCESS) {
    error = "vkCreateInstance failed";
    return nullptr;
  }
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(s.instance, &count, nullptr);
  if (count == 0) {
    error = "no Vulkan physical device";
    return nullptr;
  }
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(s.instance, &count, devices.data());
  s.physical = devices[0];
  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(s.physical, &props);
  s.name = props.properties.deviceName;
  s.subgroupSize = subgroup.subgroupSize;
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(s.physical, &families, nullptr);
  std::vector<VkQueueFamilyProperties> familyProps(families);
  vkGetPhysicalDeviceQueueFamilyProperties(s.physical, &families, familyProps.data());
  bool found = false;
  for (uint32_t i = 0; i < families && !found; ++i)
    if (familyProps[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      s.family = i;
      found = true;
    }
  if (!found) {
    error = "no compute queue";
    return nullptr;
  }
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = s.family;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  if (vkCreateDevice(s.physical, &deviceInfo, nullptr, &s.device) != VK_SUCCESS) {
    error = "vkCreateDevice failed";
    return nullptr;
  }
  vkGetDeviceQueue(s.device, s.family, 0, &s.queue);
  return harness;
}

VulkanHarness::~VulkanHarness() {
  if (!state)
    return;
  if (state->device)
    vkDestroyDevice(state->device, nullptr);
  if (state->instance)
    vkDestroyInstance(state->instance, nullptr);
}

std::string VulkanHarness::deviceName() const { return state->name; }
uint32_t VulkanHarness::subgroupSize() const { return state->subgroupSize; }

namespace {
/// Everything one run creates, destroyed in reverse on every path.
struct RunObjects {
  VkDevice device;
  std::vector<VkBuffer> buffers;
  std::vector<VkDeviceMemory> memories;
  VkShaderModule shader = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  ~RunObjects() {
    if (fence) vkDestroyFence(device, fence, nullptr);
    if (commandPool) vkDestroyCommandPool(device, commandPool, nullptr);
    if (pool) vkDestroyDescriptorPool(device, pool, nullptr);
    if (pipeline) vkDestroyPipeline(device, pipeline, nullptr);
    if (pipelineLayout) vkDestroyPipelineLayout(device, pipelineLayout, nullptr);
    if (setLayout) vkDestroyDescriptorSetLayout(device, setLayout, nullptr);
    if (shader) vkDestroyShaderModule(device, shader, nullptr);
    for (VkBuffer b : buffers) vkDestroyBuffer(device, b, nullptr);
    for (VkDeviceMemory m : memories) vkFreeMemory(device, m, nullptr);
  }
};
} // namespace

std::string VulkanHarness::run(const std::vector<uint32_t> &spirv,
                               const std::string &entry,
                               std::vector<std::vector<uint8_t>> &data,
                               uint32_t groups) {
  return runMany(spirv, entry, data, groups, 1, nullptr, nullptr);
}

std::string VulkanHarness::runMany(const std::vector<uint32_t> &spirv, const std::string &entry,
                                   Buffers &data, uint32_t groups, uint32_t runs,
                                   const std::function<void(uint32_t, Buffers &)> &prepare,
                                   const std::function<void(uint32_t, const Buffers &)> &collect) {
  State &s = *state;
  RunObjects objects{s.device};
  VkPhysicalDeviceMemoryProperties memProps;
  vkGetPhysicalDeviceMemoryProperties(s.physical, &memProps);
  const VkMemoryPropertyFlags wanted =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (auto &bytes : data) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = bytes.size();
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    VkBuffer buffer;
    CHECK_VK(vkCreateBuffer(s.device, &info, nullptr, &buffer), "vkCreateBuffer");
    objects.buffers.push_back(buffer);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(s.device, buffer, &req);
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < memProps.memoryTypeCount; ++i)
      if ((req.memoryTypeBits & (1u << i)) &&
          (memProps.memoryTypes[i].propertyFlags & wanted) == wanted) {
        type = i;
        break;
      }
    if (type == UINT32_MAX)
      return "no host-visible coherent memory type";
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    VkDeviceMemory memory;
    CHECK_VK(vkAllocateMemory(s.device, &alloc, nullptr, &memory), "vkAllocateMemory");
    objects.memories.push_back(memory);
    CHECK_VK(vkBindBufferMemory(s.device, buffer, memory, 0), "vkBindBufferMemory");
  }
  VkShaderModuleCreateInfo shaderInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  shaderInfo.codeSize = spirv.size() * sizeof(uint32_t);
  shaderInfo.pCode = spirv.data();
  CHECK_VK(vkCreateShaderModule(s.device, &shaderInfo, nullptr, &objects.shader),
           "vkCreateShaderModule");
  std::vector<VkDescriptorSetLayoutBinding> bindings(data.size());
  for (uint32_t i = 0; i < bindings.size(); ++i) {
    bindings[i] = {};
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo layoutInfo{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  layoutInfo.bindingCount = bindings.size();
  layoutInfo.pBindings = bindings.data();
  CHECK_VK(vkCreateDescriptorSetLayout(s.device, &layoutInfo, nullptr, &objects.setLayout),
           "vkCreateDescriptorSetLayout");
  VkPipelineLayoutCreateInfo plInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plInfo.setLayoutCount = 1;
  plInfo.pSetLayouts = &objects.setLayout;
  CHECK_VK(vkCreatePipelineLayout(s.device, &plInfo, nullptr, &objects.pipelineLayout),
           "vkCreatePipelineLayout");
  VkComputePipelineCreateInfo pipeInfo{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipeInfo.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeInfo.stage.module = objects.shader;
  pipeInfo.stage.pName = entry.c_str();
  pipeInfo.layout = objects.pipelineLayout;
  CHECK_VK(vkCreateComputePipelines(s.device, VK_NULL_HANDLE, 1, &pipeInfo, nullptr,
                                    &objects.pipeline),
           "vkCreateComputePipelines");
  VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                static_cast<uint32_t>(data.size())};
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &poolSize;
  CHECK_VK(vkCreateDescriptorPool(s.device, &poolInfo, nullptr, &objects.pool),
           "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  setInfo.descriptorPool = objects.pool;
  setInfo.descriptorSetCount = 1;
  setInfo.pSetLayouts = &objects.setLayout;
  VkDescriptorSet set;
  CHECK_VK(vkAllocateDescriptorSets(s.device, &setInfo, &set), "vkAllocateDescriptorSets");
  std::vector<VkDescriptorBufferInfo> bufferInfos(data.size());
  std::vector<VkWriteDescriptorSet> writes(data.size());
  for (uint32_t i = 0; i < data.size(); ++i) {
    bufferInfos[i] = {objects.buffers[i], 0, VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &bufferInfos[i];
  }
  vkUpdateDescriptorSets(s.device, writes.size(), writes.data(), 0, nullptr);
  VkCommandPoolCreateInfo cpInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpInfo.queueFamilyIndex = s.family;
  CHECK_VK(vkCreateCommandPool(s.device, &cpInfo, nullptr, &objects.commandPool),
           "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cbInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbInfo.commandPool = objects.commandPool;
  cbInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbInfo.commandBufferCount = 1;
  VkCommandBuffer cmd;
  CHECK_VK(vkAllocateCommandBuffers(s.device, &cbInfo, &cmd), "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CHECK_VK(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, objects.pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, objects.pipelineLayout,
                          0, 1, &set, 0, nullptr);
  vkCmdDispatch(cmd, groups, 1, 1);
  CHECK_VK(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  CHECK_VK(vkCreateFence(s.device, &fenceInfo, nullptr, &objects.fence), "vkCreateFence");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  for (uint32_t run = 0; run < runs; ++run) {
    if (prepare)
      prepare(run, data);
    for (size_t i = 0; i < data.size(); ++i) {
      void *mapped;
      CHECK_VK(vkMapMemory(s.device, objects.memories[i], 0, data[i].size(), 0, &mapped),
               "vkMapMemory");
      std::memcpy(mapped, data[i].data(), data[i].size());
      vkUnmapMemory(s.device, objects.memories[i]);
    }
    CHECK_VK(vkQueueSubmit(s.queue, 1, &submit, objects.fence), "vkQueueSubmit");
    CHECK_VK(vkWaitForFences(s.device, 1, &objects.fence, VK_TRUE, UINT64_MAX),
             "vkWaitForFences");
    CHECK_VK(vkResetFences(s.device, 1, &objects.fence), "vkResetFences");
    for (size_t i = 0; i < data.size(); ++i) {
      void *mapped;
      CHECK_VK(vkMapMemory(s.device, objects.memories[i], 0, data[i].size(), 0, &mapped),
               "vkMapMemory");
      std::memcpy(data[i].data(), mapped, data[i].size());
      vkUnmapMemory(s.device, objects.memories[i]);
    }
    if (collect)
      collect(run, data);
  }
  return "";
}

} // namespace kiln::test
