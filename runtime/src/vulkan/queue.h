// Submission of one recorded command buffer to the compute queue, signalling a fence.
#ifndef KILN_RUNTIME_VULKAN_QUEUE_H
#define KILN_RUNTIME_VULKAN_QUEUE_H

#include "base/status.h"

#include <vulkan/vulkan.h>

namespace kiln::rt::vk {

Status submit(VkQueue queue, VkCommandBuffer commands, VkFence fence);

} // namespace kiln::rt::vk

#endif // KILN_RUNTIME_VULKAN_QUEUE_H
