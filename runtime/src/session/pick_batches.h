// Many tokens per submission (docs/runtime.md, "Many tokens per submit"): the
// decode program recorded `steps` times into one command buffer. Between two copies
// the device copies its own pick (the plan's sampling.greedy words, written by the
// decode program's stage.sample dispatch) into the next copy's Token fields
// and the pick and its log-probability into a host-readable result slot; every other
// parameter of step i comes from block i of a ring the host writes before the submit.
#ifndef KILN_RUNTIME_SESSION_PICK_BATCHES_H
#define KILN_RUNTIME_SESSION_PICK_BATCHES_H

#include "session/recorder.h"
#include "vulkan/buffer.h"
#include "vulkan/command_buffer.h"
#include "vulkan/device.h"

#include "kiln/runtime.h"

#include <map>
#include <tuple>
#include <memory>

namespace kiln::rt {

class PickBatches {
public:
  /// For plans whose decode program picks on the device; up to `maxSteps` a submit.
  Status create(const vk::Device &device, const kiln::plan::Plan &plan,
                const kiln::plan::Program &decode, uint32_t maxSteps);
  uint32_t maxSteps() const { return maxSteps_; }
  /// Where the host writes step i's parameter block (the plan's ParamBlock layout).
  uint8_t *block(uint32_t step) const { return ring_.mapped() + step * stride_; }
  Status flushBlocks() const { return ring_.flush(); }
  /// The command buffer running `steps` copies (recorded on first use). Only the
  /// last copy copies its read-out into the readback buffer. `untilStop`: the
  /// copies after the first run only while the plan's continue word is 1
  /// (conditional rendering), so a stop token ends the submission's work. `first`:
  /// the submission's first step is the session's first call (CallKind).
  Status commandsFor(uint32_t steps, bool untilStop, CallKind first, const RecordInputs &inputs,
                     VkCommandBuffer &out);
  /// The plan's pick carries a continue word and the device can run under it.
  bool canStopOnDevice() const;
  /// The token and log-probability each of the first `steps` steps picked.
  Status readResults(uint32_t steps, kiln_step_result_t *out) const;

private:
  Status record(uint32_t steps, bool untilStop, CallKind first, const RecordInputs &inputs,
                vk::CommandBuffer &commands);

  const vk::Device *device_ = nullptr;
  const kiln::plan::Plan *plan_ = nullptr;
  const kiln::plan::Program *decode_ = nullptr;
  uint32_t maxSteps_ = 0;
  uint64_t stride_ = 0;
  vk::Buffer ring_;    // maxSteps parameter blocks, host-written
  vk::Buffer results_; // maxSteps (token, log-probability) pairs, host-read
  // The parts of a block the host writes for steps after the first (all but the
  // Token words), and the Token words the device's pick goes to.
  std::vector<VkBufferCopy> hostRegions_;
  std::vector<uint64_t> tokenOffsets_;
  std::map<std::tuple<uint32_t, bool, CallKind>, std::unique_ptr<vk::CommandBuffer>> recorded_;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_SESSION_PICK_BATCHES_H
