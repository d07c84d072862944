// A VkBuffer with its own VkDeviceMemory. Device-local buffers take a DEVICE_LOCAL type
// when the device has one the buffer may use, else any allowed type; host-visible
// buffers prefer HOST_COHERENT and are mapped for their whole life (flush/invalidate
// are no-ops when coherent). Memory types come from the device: nothing assumed.
#ifndef KILN_RUNTIME_VULKAN_BUFFER_H
#define KILN_RUNTIME_VULKAN_BUFFER_H

#include "vulkan/device.h"

namespace kiln::rt::vk {

/// DeviceLocal: the GPU's own memory. HostVisible: mapped, written by the host
/// (any host-visible type). HostReadback: mapped, read by the host: cached system
/// memory where the device has it (reading a device-local mapping over the bus is
/// uncached and ~100x slower).
enum class MemoryPlacement { DeviceLocal, HostVisible, HostReadback };

class Buffer {
public:
  Buffer() = default;
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() { destroy(); }

  /// `what` names the buffer in messages ("buffer 3 'kv_ring'").
  Status create(const Device &device, uint64_t byteSize, MemoryPlacement placement,
                const std::string &what);
  void destroy();

  VkBuffer handle() const { return buffer_; }
  uint64_t byteSize() const { return byteSize_; }
  /// Host pointer of a host-visible buffer (null otherwise).
  uint8_t *mapped() const { return mapped_; }
  /// Makes host writes visible to the device (non-coherent memory only).
  Status flush() const;
  /// Makes device writes visible to the host (non-coherent memory only).
  Status invalidate() const;

private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  uint64_t byteSize_ = 0;
  uint8_t *mapped_ = nullptr;
  bool coherent_ = true;
};

} // namespace kiln::rt::vk

#endif // KILN_RUNTIME_VULKAN_BUFFER_H
