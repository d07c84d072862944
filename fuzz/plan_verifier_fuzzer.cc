// libFuzzer target (issue 12): arbitrary bytes through the plan verifier, structure then
// meaning, against the limits of a typical device. The verifier must answer every input
// with a status: no crash, no sanitizer finding, no hang. Built with KILN_BUILD_FUZZERS
// (Clang); scripts/test.sh runs it from the tiny models' plans.
#include "plan/plan_verifier.h"

#include <cstdint>
#include <cstring>
#include <memory>

#include <vulkan/vulkan_core.h>

namespace {

kiln::rt::DeviceLimits typicalLimits() {
  kiln::rt::DeviceLimits limits;
  for (int i = 0; i < 3; ++i) {
    limits.maxWorkgroupSize[i] = 1024;
    limits.maxWorkgroupCount[i] = 65535;
  }
  limits.maxWorkgroupSize[2] = 64;
  limits.maxWorkgroupInvocations = 1024;
  limits.maxPushConstantBytes = 128;
  limits.minStorageBufferOffsetAlignment = 16;
  limits.minUniformBufferOffsetAlignment = 64;
  limits.maxStorageBufferRange = 1u << 31;
  limits.maxUniformBufferRange = 65536;
  limits.maxPerStageStorageBuffers = 32;
  limits.maxPerStageUniformBuffers = 16;
  limits.subgroupSize = 32;
  limits.minSubgroupSize = 32;
  limits.maxSubgroupSize = 32;
  limits.apiVersion = VK_API_VERSION_1_3;
  limits.shaderFloat16 = true;
  limits.cooperativeMatrixNV = true;
  return limits;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The runtime verifies plans it owns, aligned as a flatbuffer needs (OwnedBytes).
  std::unique_ptr<uint64_t[]> aligned(new uint64_t[size / 8 + 1]);
  if (size)
    std::memcpy(aligned.get(), data, size);
  const auto *bytes = reinterpret_cast<const uint8_t *>(aligned.get());
  if (!kiln::rt::verifyPlanStructure(bytes, size).ok())
    return 0;
  static const kiln::rt::DeviceLimits limits = typicalLimits();
  (void)kiln::rt::verifyPlanMeaning(*kiln::plan::GetPlan(bytes), limits);
  return 0;
}
