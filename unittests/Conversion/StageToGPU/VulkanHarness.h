//===- VulkanHarness.h - Test-only: run one compute kernel ------*- C++ -*-===//
//
// Creates host-visible buffers, one pipeline, dispatches a 1-D grid and reads
// the buffers back. For tests only: the runtime has its own Vulkan layer.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_UNITTESTS_TARGET_VULKANHARNESS_H
#define KILN_UNITTESTS_TARGET_VULKANHARNESS_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test {

class VulkanHarness {
public:
  /// Null with `error` set when no Vulkan device is usable.
  static std::unique_ptr<VulkanHarness> create(std::string &error);
  ~VulkanHarness();

  /// Binds `buffers[i]` to binding i of set 0, runs `entry` over `groups`
  /// workgroups, and copies every buffer back. Returns an empty string on
  /// success, else what failed.
  std::string run(const std::vector<uint32_t> &spirv, const std::string &entry,
                  std::vector<std::vector<uint8_t>> &buffers, uint32_t groups);
  /// The same, `runs` times with one pipeline: before run r, `prepare(r,
  /// buffers)` may change what is uploaded; after it, `collect(r, buffers)`
  /// sees what came back. For statistics over many dispatches.
  using Buffers = std::vector<std::vector<uint8_t>>;
  std::string runMany(const std::vector<uint32_t> &spirv, const std::string &entry,
                      Buffers &buffers, uint32_t groups, uint32_t runs,
                      const std::function<void(uint32_t, Buffers &)> &prepare,
                      const std::function<void(uint32_t, const Buffers &)> &collect);

  std::string deviceName() const;
  /// The device's subgroup size, for the report only: kernels never use it.
  uint32_t subgroupSize() const;

  struct State;

private:
  std::unique_ptr<State> state;
};

} // namespace kiln::test

#endif // KILN_UNITTESTS_TARGET_VULKANHARNESS_H
