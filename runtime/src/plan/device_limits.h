// DeviceLimits: the numbers plan verification checks kernels against. A plain struct
// filled from the physical device, so the verifier can be read without Vulkan types.
#ifndef KILN_RUNTIME_PLAN_DEVICE_LIMITS_H
#define KILN_RUNTIME_PLAN_DEVICE_LIMITS_H

#include <cstdint>

namespace kiln::rt {

struct DeviceLimits {
  uint32_t maxWorkgroupSize[3] = {0, 0, 0};
  uint32_t maxWorkgroupInvocations = 0;
  uint32_t maxWorkgroupCount[3] = {0, 0, 0};
  uint32_t maxPushConstantBytes = 0;
  uint32_t maxWorkgroupMemoryBytes = 0;  // maxComputeSharedMemorySize
  uint64_t minStorageBufferOffsetAlignment = 1;
  uint64_t minUniformBufferOffsetAlignment = 1;
  uint64_t maxStorageBufferRange = 0;
  uint64_t maxUniformBufferRange = 0;
  uint32_t maxPerStageStorageBuffers = 0;
  uint32_t maxPerStageUniformBuffers = 0;
  uint32_t subgroupSize = 0;          // the default size of compute dispatches
  uint32_t minSubgroupSize = 0;       // with subgroup size control
  uint32_t maxSubgroupSize = 0;
  bool subgroupSizeControl = false;   // a required size other than the default is possible
  uint32_t subgroupFeatures = 0;      // VkSubgroupFeatureFlags in compute stages
  uint32_t apiVersion = 0;            // VK_API_VERSION_*: 1.3 runs SPIR-V 1.6 modules
  bool shaderFloat16 = false;         // f16 arithmetic (SPIR-V Float16)
  // VK_NV_cooperative_matrix with a subgroup-scope 16 x 8 x 16 f16 x f16 + f32 shape,
  // the one Kiln's matrix-unit kernels use (SPIR-V CooperativeMatrixNV).
  bool cooperativeMatrixNV = false;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_PLAN_DEVICE_LIMITS_H
