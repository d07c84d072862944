#include "vulkan/buffer.h"

#include "vulkan/status_util.h"

namespace kiln::rt::vk {
namespace {

// The first allowed type having all of `wanted` and none of `unwanted`; UINT32_MAX
// when none.
uint32_t findMemoryType(const VkPhysicalDeviceMemoryProperties &memory, uint32_t allowed,
                        VkMemoryPropertyFlags wanted, VkMemoryPropertyFlags unwanted = 0) {
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if ((allowed & (1u << i)) && (memory.memoryTypes[i].propertyFlags & wanted) == wanted &&
        !(memory.memoryTypes[i].propertyFlags & unwanted))
      return i;
  return UINT32_MAX;
}

} // namespace

Status Buffer::create(const Device &device, uint64_t byteSize, MemoryPlacement placement,
                      const std::string &what) {
  device_ = device.handle();
  byteSize_ = byteSize;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = byteSize;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
               VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  // A State buffer may hold the continue word a submission's steps run under.
  if (device.conditionalRendering())
    info.usage |= VK_BUFFER_USAGE_CONDITIONAL_RENDERING_BIT_EXT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  KILN_RETURN_IF_ERROR(
      vkStatus(vkCreateBuffer(device_, &info, nullptr, &buffer_), "vkCreateBuffer").withContext(what));

  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device_, buffer_, &requirements);
  const auto &memory = device.physical().memory;
  uint32_t type = UINT32_MAX;
  if (placement == MemoryPlacement::DeviceLocal) {
    type = findMemoryType(memory, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type == UINT32_MAX)
      type = findMemoryType(memory, requirements.memoryTypeBits, 0);
  } else {
    if (placement == MemoryPlacement::HostReadback) {
      type = findMemoryType(memory, requirements.memoryTypeBits,
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                            VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
      if (type == UINT32_MAX)
        type = findMemoryType(memory, requirements.memoryTypeBits,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    }
    if (type == UINT32_MAX)
      type = findMemoryType(memory, requirements.memoryTypeBits,
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (type == UINT32_MAX)
      type = findMemoryType(memory, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  }
  if (type == UINT32_MAX)
    return unavailable(what + ": no memory type fits (type bits 0x" +
                       std::to_string(requirements.memoryTypeBits) + ")");
  coherent_ = memory.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

  VkMemoryAllocateInfo allocation{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocation.allocationSize = requirements.size;
  allocation.memoryTypeIndex = type;
  VkResult result = vkAllocateMemory(device_, &allocation, nullptr, &memory_);
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
    return resourceExhausted(what + ": out of " +
                             (result == VK_ERROR_OUT_OF_DEVICE_MEMORY ? "device" : "host") +
                             " memory allocating " + std::to_string(requirements.size) + " bytes");
  KILN_RETURN_IF_ERROR(vkStatus(result, "vkAllocateMemory").withContext(what));
  KILN_RETURN_IF_ERROR(
      vkStatus(vkBindBufferMemory(device_, buffer_, memory_, 0), "vkBindBufferMemory").withContext(what));
  if (placement != MemoryPlacement::DeviceLocal) {
    void *pointer = nullptr;
    KILN_RETURN_IF_ERROR(vkStatus(vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &pointer),
                                  "vkMapMemory")
                             .withContext(what));
    mapped_ = static_cast<uint8_t *>(pointer);
  }
  return okStatus();
}

Status Buffer::flush() const {
  if (coherent_ || !mapped_)
    return okStatus();
  VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
  range.memory = memory_;
  range.size = VK_WHOLE_SIZE;
  return vkStatus(vkFlushMappedMemoryRanges(device_, 1, &range), "vkFlushMappedMemoryRanges");
}

Status Buffer::invalidate() const {
  if (coherent_ || !mapped_)
    return okStatus();
  VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
  range.memory = memory_;
  range.size = VK_WHOLE_SIZE;
  return vkStatus(vkInvalidateMappedMemoryRanges(device_, 1, &range),
                  "vkInvalidateMappedMemoryRanges");
}

void Buffer::destroy() {
  if (device_ == VK_NULL_HANDLE)
    return;
  if (mapped_)
    vkUnmapMemory(device_, memory_);
  if (buffer_ != VK_NULL_HANDLE)
    vkDestroyBuffer(device_, buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE)
    vkFreeMemory(device_, memory_, nullptr);
  mapped_ = nullptr;
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  device_ = VK_NULL_HANDLE;
}

} // namespace kiln::rt::vk
