// A timestamp query pool: two queries around every dispatch of a program, read after
// its fence, turned into milliseconds with the device's timestamp period.
#ifndef KILN_RUNTIME_VULKAN_TIMESTAMP_QUERY_H
#define KILN_RUNTIME_VULKAN_TIMESTAMP_QUERY_H

#include "base/status.h"

#include <vector>
#include <vulkan/vulkan.h>

namespace kiln::rt::vk {

class TimestampQueries {
public:
  TimestampQueries() = default;
  TimestampQueries(const TimestampQueries &) = delete;
  TimestampQueries &operator=(const TimestampQueries &) = delete;
  ~TimestampQueries() { destroy(); }

  Status create(VkDevice device, uint32_t count, float periodNs, uint32_t validBits);
  void destroy();
  uint32_t count() const { return count_; }

  void recordReset(VkCommandBuffer commands);
  void recordWrite(VkCommandBuffer commands, uint32_t query);
  /// Milliseconds between queries 2i and 2i+1, for every pair.
  /// Milliseconds between each (start, end) pair; `spanMs`, when given, gets
  /// the first start to the last end (gaps and barriers included).
  Status readPairs(std::vector<double> &out, double *spanMs = nullptr);

private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueryPool pool_ = VK_NULL_HANDLE;
  uint32_t count_ = 0;
  float periodNs_ = 1;
  uint64_t mask_ = ~0ull;
};

} // namespace kiln::rt::vk

#endif // KILN_RUNTIME_VULKAN_TIMESTAMP_QUERY_H
