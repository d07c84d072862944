#include "vulkan/pipeline.h"

#include "vulkan/status_util.h"

namespace kiln::rt::vk {

Status Pipeline::create(VkDevice device, const PipelineDescription &description) {
  device_ = device;
  VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = static_cast<uint32_t>(description.bindings.size());
  setInfo.pBindings = description.bindings.data();
  KILN_VK_RETURN_IF_ERROR(vkCreateDescriptorSetLayout(device_, &setInfo, nullptr, &setLayout_));

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, description.pushConstantBytes};
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &setLayout_;
  layoutInfo.pushConstantRangeCount = description.pushConstantBytes ? 1 : 0;
  layoutInfo.pPushConstantRanges = &range;
  KILN_VK_RETURN_IF_ERROR(vkCreatePipelineLayout(device_, &layoutInfo, nullptr, &layout_));

  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroupSize{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  subgroupSize.requiredSubgroupSize = description.requiredSubgroupSize;

  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = description.module;
  info.stage.pName = description.entryPoint.c_str();
  // Chained only when asked: verification has checked the device allows the size.
  if (description.requiredSubgroupSize)
    info.stage.pNext = &subgroupSize;
  info.layout = layout_;
  return vkStatus(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline_),
                  "vkCreateComputePipelines");
}

void Pipeline::destroy() {
  if (device_ == VK_NULL_HANDLE)
    return;
  if (pipeline_ != VK_NULL_HANDLE)
    vkDestroyPipeline(device_, pipeline_, nullptr);
  if (layout_ != VK_NULL_HANDLE)
    vkDestroyPipelineLayout(device_, layout_, nullptr);
  if (setLayout_ != VK_NULL_HANDLE)
    vkDestroyDescriptorSetLayout(device_, setLayout_, nullptr);
  pipeline_ = VK_NULL_HANDLE;
  layout_ = VK_NULL_HANDLE;
  setLayout_ = VK_NULL_HANDLE;
}

} // namespace kiln::rt::vk
