#include "weights/staging_uploader.h"

#include "vulkan/queue.h"

#include <algorithm>
#include <cstring>

namespace kiln::rt {

Status StagingUploader::create(const vk::Device &device, uint64_t stagingBytes,
                               vk::CommandBuffer &commands, vk::Fence &fence) {
  device_ = &device;
  commands_ = &commands;
  fence_ = &fence;
  return staging_.create(device, std::max<uint64_t>(4, (stagingBytes + 3) & ~3ull),
                         vk::MemoryPlacement::HostVisible, "staging buffer");
}

Status StagingUploader::upload(VkBuffer destination, uint64_t offset, const uint8_t *data,
                               uint64_t size) {
  while (size > 0) {
    if (used_ == staging_.byteSize())
      KILN_RETURN_IF_ERROR(finish());
    uint64_t piece = std::min(size, staging_.byteSize() - used_);
    std::memcpy(staging_.mapped() + used_, data, piece);
    pending_.push_back({destination, VkBufferCopy{used_, offset, piece}});
    // Keep staging offsets 4-aligned for the next region.
    used_ = std::min<uint64_t>(staging_.byteSize(), (used_ + piece + 3) & ~3ull);
    data += piece;
    offset += piece;
    size -= piece;
  }
  return okStatus();
}

Status StagingUploader::finish() {
  if (pending_.empty())
    return okStatus();
  KILN_RETURN_IF_ERROR(staging_.flush());
  KILN_RETURN_IF_ERROR(commands_->begin(/*oneTimeSubmit=*/true));
  for (const Region &region : pending_)
    vkCmdCopyBuffer(commands_->handle(), staging_.handle(), region.destination, 1, &region.copy);
  commands_->barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT);
  KILN_RETURN_IF_ERROR(commands_->end());
  KILN_RETURN_IF_ERROR(vk::submit(device_->queue(), commands_->handle(), fence_->handle()));
  KILN_RETURN_IF_ERROR(fence_->waitAndReset(300ull * 1000000000ull));
  pending_.clear();
  used_ = 0;
  return okStatus();
}

} // namespace kiln::rt
