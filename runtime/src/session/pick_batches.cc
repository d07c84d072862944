#include "session/pick_batches.h"

#include <algorithm>
#include <cstring>

namespace kiln::rt {
namespace kp = kiln::plan;

namespace {

constexpr VkAccessFlags kTransferAccess = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;

} // namespace

Status PickBatches::create(const vk::Device &device, const kp::Plan &plan,
                             const kp::Program &decode, uint32_t maxSteps) {
  device_ = &device;
  plan_ = &plan;
  decode_ = &decode;
  maxSteps_ = std::max(1u, maxSteps);
  const kp::ParamBlock &params = *plan.params();
  // Blocks 256 bytes apart: the largest alignment Vulkan allows for copy or bind offsets.
  stride_ = (static_cast<uint64_t>(params.byte_size()) + 255) / 256 * 256;
  KILN_RETURN_IF_ERROR(ring_.create(device, std::max<uint64_t>(stride_, 256) * maxSteps_,
                                    vk::MemoryPlacement::HostVisible, "pick parameter ring"));
  KILN_RETURN_IF_ERROR(results_.create(device, 8ull * maxSteps_, vk::MemoryPlacement::HostReadback,
                                       "pick results"));
  std::vector<std::pair<uint64_t, uint64_t>> tokenWords; // [begin, end) bytes
  if (params.fields())
    for (const kp::ParamField *field : *params.fields())
      if ((field->rule() == kp::ParamRule::Token && field->row() == 0) ||
          field->rule() == kp::ParamRule::Tokens) {
        tokenOffsets_.push_back(field->byte_offset());
        tokenWords.emplace_back(field->byte_offset(), field->byte_offset() + 4);
      }
  std::sort(tokenWords.begin(), tokenWords.end());
  uint64_t at = 0;
  for (auto [begin, end] : tokenWords) {
    if (begin > at)
      hostRegions_.push_back({at, at, begin - at});
    at = std::max(at, end);
  }
  if (at < params.byte_size())
    hostRegions_.push_back({at, at, params.byte_size() - at});
  return okStatus();
}

bool PickBatches::canStopOnDevice() const {
  return device_->conditionalRendering() && plan_->sampling()->greedy()->stop_flag();
}

Status PickBatches::commandsFor(uint32_t steps, bool untilStop, CallKind first,
                                const RecordInputs &inputs, VkCommandBuffer &out) {
  if (steps == 0 || steps > maxSteps_)
    return internalError("pick batch of " + std::to_string(steps) + " steps (at most " +
                         std::to_string(maxSteps_) + ")");
  if (untilStop && !canStopOnDevice())
    return internalError("pick batch: the plan or device cannot stop on the device");
  auto &slot = recorded_[{steps, untilStop, first}];
  if (!slot) {
    auto commands = std::make_unique<vk::CommandBuffer>();
    KILN_RETURN_IF_ERROR(commands->create(device_->handle(), device_->queueFamily()));
    KILN_RETURN_IF_ERROR(record(steps, untilStop, first, inputs, *commands));
    slot = std::move(commands);
  }
  out = slot->handle();
  return okStatus();
}

Status PickBatches::record(uint32_t steps, bool untilStop, CallKind first,
                           const RecordInputs &inputs, vk::CommandBuffer &commands) {
  const kp::Plan &plan = *plan_;
  const kp::DeviceGreedy &greedy = *plan.sampling()->greedy();
  const VkBuffer params = inputs.buffers[plan.params()->buffer()];
  const VkBuffer picked = inputs.buffers[greedy.buffer()];
  const uint32_t blockBytes = plan.params()->byte_size();
  VkCommandBuffer cb = commands.handle();
  KILN_RETURN_IF_ERROR(commands.begin(/*oneTimeSubmit=*/false));
  RecordCounts counts;
  // The continue word (after the pick's 8 bytes) starts at 1; the sample kernel
  // clears it when it picks the stop token, and later steps then dispatch nothing.
  const uint64_t continueOffset = greedy.byte_offset() + 8;
  const VkPipelineStageFlags conditionalStage =
      untilStop ? VK_PIPELINE_STAGE_CONDITIONAL_RENDERING_BIT_EXT : 0;
  const VkAccessFlags conditionalRead = untilStop ? VK_ACCESS_CONDITIONAL_RENDERING_READ_BIT_EXT : 0;
  if (untilStop) {
    vkCmdFillBuffer(cb, picked, continueOffset, 4, 1);
    commands.barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | conditionalStage,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | conditionalRead);
  }
  for (uint32_t step = 0; step < steps; ++step) {
    // Step 0's block is the host's whole; later steps take the host's words around
    // the Token fields and the previous step's pick into them. The barrier at the
    // end of the previous step orders these writes after its shaders' reads.
    const uint64_t base = step * stride_;
    if (step == 0) {
      VkBufferCopy whole{0, 0, blockBytes};
      vkCmdCopyBuffer(cb, ring_.handle(), params, 1, &whole);
    } else {
      std::vector<VkBufferCopy> regions = hostRegions_;
      for (VkBufferCopy &region : regions)
        region.srcOffset += base;
      if (!regions.empty())
        vkCmdCopyBuffer(cb, ring_.handle(), params, static_cast<uint32_t>(regions.size()),
                        regions.data());
      std::vector<VkBufferCopy> tokens;
      for (uint64_t offset : tokenOffsets_)
        tokens.push_back({greedy.byte_offset(), offset, 4});
      if (!tokens.empty())
        vkCmdCopyBuffer(cb, picked, params, static_cast<uint32_t>(tokens.size()), tokens.data());
    }
    // The program's entry barrier makes these copies visible to its shaders.
    // Skipped steps still copy: their parameters go unread, and their result slot
    // repeats the stop token, where the host cuts.
    if (untilStop && step > 0)
      device_->beginConditional(cb, picked, continueOffset);
    recordProgramBody(commands, plan, *decode_, inputs, nullptr,
                      /*withReadback=*/step + 1 == steps,
                      step == 0 ? first : CallKind::Later, counts);
    if (untilStop && step > 0)
      device_->endConditional(cb);
    commands.barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_TRANSFER_BIT | conditionalStage,
                     kTransferAccess | conditionalRead);
    VkBufferCopy result{greedy.byte_offset(), 8ull * step, 8};
    vkCmdCopyBuffer(cb, picked, results_.handle(), 1, &result);
  }
  commands.barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  return commands.end();
}

Status PickBatches::readResults(uint32_t steps, kiln_step_result_t *out) const {
  KILN_RETURN_IF_ERROR(results_.invalidate());
  for (uint32_t step = 0; step < steps; ++step) {
    uint32_t token;
    float logprob;
    std::memcpy(&token, results_.mapped() + 8ull * step, 4);
    std::memcpy(&logprob, results_.mapped() + 8ull * step + 4, 4);
    out[step].token = static_cast<int32_t>(token);
    out[step].logprob = logprob;
  }
  return okStatus();
}

} // namespace kiln::rt
