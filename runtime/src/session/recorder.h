// Records one program of a plan into a command buffer, once (HOUSE.md §3 step 4):
// reset device flags, then per dispatch: the barrier the plan names, bind pipeline and
// descriptor set, push constants, dispatch (direct or indirect); then the copy into
// the readback block and a barrier that makes it visible to the host.
#ifndef KILN_RUNTIME_SESSION_RECORDER_H
#define KILN_RUNTIME_SESSION_RECORDER_H

#include "vulkan/command_buffer.h"
#include "vulkan/timestamp_query.h"

#include "kiln/schemas/plan_generated.h"

#include <vector>

namespace kiln::rt {

struct RecordInputs {
  std::vector<VkBuffer> buffers;          // by plan buffer index
  std::vector<VkPipeline> pipelines;      // by kernel index
  std::vector<VkPipelineLayout> layouts;  // by kernel index
  std::vector<VkDescriptorSet> sets;      // by kernel index
};

struct RecordCounts {
  uint32_t dispatches = 0;
  uint32_t barriers = 0; // every vkCmdPipelineBarrier recorded
};

/// What the recorded program timestamps: nothing, a pair of queries around every
/// dispatch (profiling), or one pair around the whole program (its GPU time, which
/// costs two queries a call).
enum class TimestampMode { None, PerDispatch, WholeProgram };

/// Records `program` into an open command buffer: the entry barrier (device flag
/// resets first), its dispatches (a timestamp pair around each when `perDispatch` is
/// given) and, when `withReadback`, the readback copy and the barrier to the host.
void recordProgramBody(vk::CommandBuffer &commands, const kiln::plan::Plan &plan,
                       const kiln::plan::Program &program, const RecordInputs &inputs,
                       vk::TimestampQueries *perDispatch, bool withReadback,
                       RecordCounts &counts);

/// Binds `dispatch`'s pipeline, descriptor set and push constants, and records the
/// dispatch (direct, or indirect from its buffer).
void recordDispatch(VkCommandBuffer commands, const kiln::plan::Dispatch &dispatch,
                    const RecordInputs &inputs);

/// `timestamps` must hold the queries `mode` writes (none, 2 per dispatch, or 2).
/// `repeat` records the program that many times back to back (a benchmark of GPU
/// work without the host between tokens: every copy runs at the same position).
Status recordProgram(vk::CommandBuffer &commands, const kiln::plan::Plan &plan,
                     const kiln::plan::Program &program, const RecordInputs &inputs,
                     vk::TimestampQueries *timestamps, TimestampMode mode, uint32_t repeat,
                     RecordCounts &counts);

} // namespace kiln::rt

#endif // KILN_RUNTIME_SESSION_RECORDER_H
