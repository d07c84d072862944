// Uploads bytes into device-local buffers through one host-visible staging buffer:
// regions are packed into staging until it is full, then copied in one submission.
// A tensor larger than the staging buffer goes in pieces.
#ifndef KILN_RUNTIME_WEIGHTS_STAGING_UPLOADER_H
#define KILN_RUNTIME_WEIGHTS_STAGING_UPLOADER_H

#include "vulkan/buffer.h"
#include "vulkan/command_buffer.h"
#include "vulkan/fence.h"

#include <vector>

namespace kiln::rt {

class StagingUploader {
public:
  /// Staging of `stagingBytes` (rounded up to 4); `commands` and `fence` are borrowed.
  Status create(const vk::Device &device, uint64_t stagingBytes, vk::CommandBuffer &commands,
                vk::Fence &fence);
  /// Queues `size` bytes for `destination` at `offset`; may submit.
  Status upload(VkBuffer destination, uint64_t offset, const uint8_t *data, uint64_t size);
  /// Submits what is queued and waits.
  Status finish();

private:
  const vk::Device *device_ = nullptr;
  vk::CommandBuffer *commands_ = nullptr;
  vk::Fence *fence_ = nullptr;
  vk::Buffer staging_;
  uint64_t used_ = 0;
  struct Region {
    VkBuffer destination;
    VkBufferCopy copy;
  };
  std::vector<Region> pending_;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_WEIGHTS_STAGING_UPLOADER_H
