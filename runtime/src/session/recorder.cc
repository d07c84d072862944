#include "session/recorder.h"

namespace kiln::rt {
namespace kp = kiln::plan;

namespace {

constexpr VkAccessFlags kShaderAccess = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;

} // namespace

bool recordedIn(const kp::Dispatch &dispatch, CallKind kind) {
  return kind == CallKind::First || dispatch.calls() != kp::DispatchCalls::First;
}

uint32_t recordedDispatches(const kp::Program &program, CallKind kind) {
  uint32_t count = 0;
  if (program.dispatches())
    for (const kp::Dispatch *dispatch : *program.dispatches())
      count += recordedIn(*dispatch, kind);
  return count;
}

bool hasFirstCallDispatches(const kp::Program &program) {
  const uint32_t all = program.dispatches() ? program.dispatches()->size() : 0;
  return recordedDispatches(program, CallKind::Later) != all;
}

void recordDispatch(VkCommandBuffer cb, const kp::Dispatch &dispatch, const RecordInputs &inputs) {
  const uint32_t k = dispatch.kernel();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, inputs.pipelines[k]);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, inputs.layouts[k], 0, 1,
                          &inputs.sets[k], 0, nullptr);
  if (dispatch.push_constants() && dispatch.push_constants()->size())
    vkCmdPushConstants(cb, inputs.layouts[k], VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       dispatch.push_constants()->size() * 4, dispatch.push_constants()->data());
  if (dispatch.grid_mode() == kp::GridMode::Indirect)
    vkCmdDispatchIndirect(cb, inputs.buffers[dispatch.indirect_buffer()], dispatch.indirect_offset());
  else
    vkCmdDispatch(cb, dispatch.grid()->x(), dispatch.grid()->y(), dispatch.grid()->z());
}

void recordProgramBody(vk::CommandBuffer &commands, const kp::Plan &plan,
                       const kp::Program &program, const RecordInputs &inputs,
                       vk::TimestampQueries *timestamps, bool withReadback, CallKind kind,
                       RecordCounts &counts) {
  VkCommandBuffer cb = commands.handle();
  // Writes of the previous submission (and the flag fills below) become visible to
  // this one's shaders and indirect reads.
  if (plan.device_flags())
    for (const kp::DeviceFlag *flag : *plan.device_flags())
      vkCmdFillBuffer(cb, inputs.buffers[flag->buffer()], flag->byte_offset(), 4, flag->reset_value());
  commands.barrier(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT |
                       VK_PIPELINE_STAGE_TRANSFER_BIT,
                   kShaderAccess | VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  ++counts.barriers;

  uint32_t query = 0;
  if (program.dispatches()) {
    // A barrier of a dispatch left out still orders what came before it
    // against what follows: the next dispatch recorded takes it.
    bool carried = false, first = true;
    for (size_t d = 0; d < program.dispatches()->size(); ++d) {
      const kp::Dispatch *dispatch = program.dispatches()->Get(d);
      if (!recordedIn(*dispatch, kind)) {
        carried = carried || dispatch->barrier_before();
        continue;
      }
      // The first dispatch is already ordered by the entry barrier.
      // Only an indirect dispatch waits at the draw-indirect stage: adding it to
      // every barrier makes each one drain the command front end as well.
      const bool barrier = (dispatch->barrier_before() || carried) && !first;
      carried = false;
      first = false;
      if (barrier) {
        const bool indirect = dispatch->grid_mode() == kp::GridMode::Indirect;
        commands.barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                             (indirect ? VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT : 0),
                         kShaderAccess | (indirect ? VK_ACCESS_INDIRECT_COMMAND_READ_BIT : 0));
        ++counts.barriers;
      }
      if (timestamps)
        timestamps->recordWrite(cb, query++);
      recordDispatch(cb, *dispatch, inputs);
      if (timestamps)
        timestamps->recordWrite(cb, query++);
      ++counts.dispatches;
    }
  }

  const kp::Readback *readback = withReadback ? program.readback() : nullptr;
  if (readback) {
    const bool copy = readback->source_buffer() != readback->buffer() ||
                      readback->source_offset() != readback->byte_offset();
    if (copy) {
      commands.barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
      ++counts.barriers;
      VkBufferCopy region{readback->source_offset(), readback->byte_offset(),
                          4ull * readback->count()};
      vkCmdCopyBuffer(cb, inputs.buffers[readback->source_buffer()],
                      inputs.buffers[readback->buffer()], 1, &region);
    }
    commands.barrier(copy ? VK_PIPELINE_STAGE_TRANSFER_BIT : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                     copy ? VK_ACCESS_TRANSFER_WRITE_BIT : VK_ACCESS_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    ++counts.barriers;
  }
}

Status recordProgram(vk::CommandBuffer &commands, const kp::Plan &plan, const kp::Program &program,
                     const RecordInputs &inputs, vk::TimestampQueries *timestamps,
                     TimestampMode mode, uint32_t repeat, CallKind kind,
                     RecordCounts &counts) {
  counts = RecordCounts();
  VkCommandBuffer cb = commands.handle();
  KILN_RETURN_IF_ERROR(commands.begin(/*oneTimeSubmit=*/false));
  if (mode != TimestampMode::None)
    timestamps->recordReset(cb);
  if (mode == TimestampMode::WholeProgram)
    timestamps->recordWrite(cb, 0);
  for (uint32_t copy = 0; copy < repeat; ++copy) {
    // Each copy starts with the entry barrier, so it waits for the one before as
    // the next call would; the counts are one copy's.
    counts = RecordCounts();
    recordProgramBody(commands, plan, program, inputs,
                      mode == TimestampMode::PerDispatch && copy == 0 ? timestamps : nullptr,
                      /*withReadback=*/true, copy == 0 ? kind : CallKind::Later, counts);
  }
  if (mode == TimestampMode::WholeProgram)
    timestamps->recordWrite(cb, 1);
  return commands.end();
}

} // namespace kiln::rt
