#include "vulkan/timestamp_query.h"

#include "vulkan/status_util.h"

namespace kiln::rt::vk {

Status TimestampQueries::create(VkDevice device, uint32_t count, float periodNs,
                                uint32_t validBits) {
  device_ = device;
  count_ = count;
  periodNs_ = periodNs;
  mask_ = validBits >= 64 ? ~0ull : ((1ull << validBits) - 1);
  if (validBits == 0)
    return unavailable("profiling: the compute queue has no timestamp support");
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = count;
  return vkStatus(vkCreateQueryPool(device_, &info, nullptr, &pool_), "vkCreateQueryPool");
}

void TimestampQueries::recordReset(VkCommandBuffer commands) {
  vkCmdResetQueryPool(commands, pool_, 0, count_);
}

void TimestampQueries::recordWrite(VkCommandBuffer commands, uint32_t query) {
  vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_, query);
}

Status TimestampQueries::readPairs(std::vector<double> &out, double *spanMs) {
  std::vector<uint64_t> ticks(count_);
  KILN_RETURN_IF_ERROR(vkStatus(
      vkGetQueryPoolResults(device_, pool_, 0, count_, ticks.size() * sizeof(uint64_t), ticks.data(),
                            sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
      "vkGetQueryPoolResults"));
  out.assign(count_ / 2, 0.0);
  for (uint32_t i = 0; i + 1 < count_; i += 2) {
    uint64_t delta = ((ticks[i + 1] & mask_) - (ticks[i] & mask_)) & mask_;
    out[i / 2] = static_cast<double>(delta) * periodNs_ * 1e-6;
  }
  if (spanMs && count_ >= 2) {
    uint64_t delta = ((ticks[count_ - 1] & mask_) - (ticks[0] & mask_)) & mask_;
    *spanMs = static_cast<double>(delta) * periodNs_ * 1e-6;
  }
  return okStatus();
}

void TimestampQueries::destroy() {
  if (pool_ != VK_NULL_HANDLE)
    vkDestroyQueryPool(device_, pool_, nullptr);
  pool_ = VK_NULL_HANDLE;
}

} // namespace kiln::rt::vk
