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

/// Which of a session's calls a recording serves: the first after its state is
/// created or reset runs every dispatch; a later one leaves out those marked
/// DispatchCalls::First (their work would do nothing).
enum class CallKind { First, Later };

/// Whether a call of `kind` runs `dispatch`.
bool recordedIn(const kiln::plan::Dispatch &dispatch, CallKind kind);

/// The dispatches of `program` a call of `kind` runs.
uint32_t recordedDispatches(const kiln::plan::Program &program, CallKind kind);

/// Whether `program` has a dispatch that only a first call runs.
bool hasFirstCallDispatches(const kiln::plan::Program &program);

/// Records `program` into an open command buffer for a call of `kind`: the entry
/// barrier (device flag resets first), its dispatches (a timestamp pair around each
/// when `perDispatch` is given; a dispatch left out passes its barrier to the next
/// one recorded) and, when `withReadback`, the readback copy and the barrier to the
/// host.
void recordProgramBody(vk::CommandBuffer &commands, const kiln::plan::Plan &plan,
                       const kiln::plan::Program &program, const RecordInputs &inputs,
                       vk::TimestampQueries *perDispatch, bool withReadback, CallKind kind,
                       RecordCounts &counts);

/// Binds `dispatch`'s pipeline, descriptor set and push constants, and records the
/// dispatch (direct, or indirect from its buffer).
void recordDispatch(VkCommandBuffer commands, const kiln::plan::Dispatch &dispatch,
                    const RecordInputs &inputs);

/// `timestamps` must hold the queries `mode` writes (none, 2 per dispatch the call
/// runs, or 2). `repeat` records the program that many times back to back (a
/// benchmark of GPU work without the host between tokens: every copy runs at the same
/// position; with `kind` First only the first copy is a first call).
Status recordProgram(vk::CommandBuffer &commands, const kiln::plan::Plan &plan,
                     const kiln::plan::Program &program, const RecordInputs &inputs,
                     vk::TimestampQueries *timestamps, TimestampMode mode, uint32_t repeat,
                     CallKind kind, RecordCounts &counts);

} // namespace kiln::rt

#endif // KILN_RUNTIME_SESSION_RECORDER_H
