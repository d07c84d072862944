#include "session/kernel_timer.h"

#include "vulkan/buffer.h"
#include "vulkan/command_buffer.h"
#include "vulkan/fence.h"
#include "vulkan/queue.h"
#include "vulkan/timestamp_query.h"

#include <map>

namespace kiln::rt {
namespace kp = kiln::plan;

namespace {

constexpr uint64_t kTimerFenceTimeoutNs = 300ull * 1000000000ull;

/// One repetition: the cache-evicting fill, a barrier behind it and the dispatch
/// before, then the dispatch between two timestamps (around its binds too, as the
/// profile records them).
void recordRun(VkCommandBuffer cb, vk::CommandBuffer &commands, const kp::Dispatch &dispatch,
               const RecordInputs &inputs, VkBuffer flush, uint64_t flushBytes, uint32_t run,
               vk::TimestampQueries &timestamps, uint32_t query) {
  if (flush != VK_NULL_HANDLE)
    vkCmdFillBuffer(cb, flush, 0, flushBytes, run);
  commands.barrier(VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT |
                       VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                       VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  timestamps.recordWrite(cb, query);
  recordDispatch(cb, dispatch, inputs);
  timestamps.recordWrite(cb, query + 1);
}

} // namespace

Status timeKernels(const vk::Device &device, const LoadedPlan &plan, const kp::Program &program,
                   const RecordInputs &inputs, uint32_t repetitions, uint64_t flushBytes,
                   std::vector<KernelTiming> &out) {
  out.clear();
  if (device.physical().timestampValidBits == 0)
    return unavailable("time kernels: the device has no timestamps on its compute queue");
  if (!program.dispatches())
    return okStatus();
  // The first dispatch of each kernel, in program order, of those a token runs
  // (a first-call dispatch, Dory's landmark seal, is not one).
  std::map<uint32_t, size_t> byKernel;
  for (uint32_t d = 0; d < program.dispatches()->size(); ++d) {
    const kp::Dispatch *dispatch = program.dispatches()->Get(d);
    if (!recordedIn(*dispatch, CallKind::Later))
      continue;
    auto [it, fresh] = byKernel.try_emplace(dispatch->kernel(), out.size());
    if (fresh) {
      KernelTiming timing;
      timing.kernel = dispatch->kernel();
      timing.firstDispatch = d;
      timing.boundBytes = plan.boundBytes(dispatch->kernel());
      timing.estimatedUs = dispatch->estimated_us();
      out.push_back(std::move(timing));
    }
    ++out[it->second].dispatches;
  }

  vk::Buffer flush;
  if (flushBytes)
    KILN_RETURN_IF_ERROR(flush.create(device, flushBytes, vk::MemoryPlacement::DeviceLocal,
                                      "the kernel timer's cache flush buffer"));
  vk::CommandBuffer commands;
  KILN_RETURN_IF_ERROR(commands.create(device.handle(), device.queueFamily()));
  vk::Fence fence;
  KILN_RETURN_IF_ERROR(fence.create(device.handle()));
  vk::TimestampQueries timestamps;
  KILN_RETURN_IF_ERROR(timestamps.create(device.handle(), 2 * repetitions,
                                         device.physical().timestampPeriodNs,
                                         device.physical().timestampValidBits));
  // One submission a kernel: a long run of fills stays far from any fence timeout.
  for (KernelTiming &timing : out) {
    const kp::Dispatch &dispatch = *program.dispatches()->Get(timing.firstDispatch);
    KILN_RETURN_IF_ERROR(commands.begin(/*oneTimeSubmit=*/true));
    VkCommandBuffer cb = commands.handle();
    timestamps.recordReset(cb);
    for (uint32_t run = 0; run < repetitions; ++run)
      recordRun(cb, commands, dispatch, inputs, flush.handle(), flushBytes, run, timestamps,
                2 * run);
    KILN_RETURN_IF_ERROR(commands.end());
    KILN_RETURN_IF_ERROR(vk::submit(device.queue(), cb, fence.handle()));
    KILN_RETURN_IF_ERROR(fence.waitAndReset(kTimerFenceTimeoutNs));
    KILN_RETURN_IF_ERROR(timestamps.readPairs(timing.runsMs));
  }
  return okStatus();
}

} // namespace kiln::rt
