#include "plan/loaded_plan.h"

#include "plan/plan_verifier.h"

#include <algorithm>
#include <new>
#include <tuple>
#include <vector>

namespace kiln::rt {
namespace kp = kiln::plan;

Status LoadedPlan::load(std::unique_ptr<OwnedBytes> bytes, const DeviceLimits &limits,
                        std::unique_ptr<LoadedPlan> &out) {
  KILN_RETURN_IF_ERROR(verifyPlanStructure(bytes->data(), bytes->size()));
  const kp::Plan *root = kp::GetPlan(bytes->data());
  KILN_RETURN_IF_ERROR(verifyPlanMeaning(*root, limits));
  std::unique_ptr<LoadedPlan> plan(new (std::nothrow) LoadedPlan());
  if (!plan)
    return resourceExhausted("out of host memory");
  plan->root_ = root;
  plan->bytes_ = std::move(bytes);
  for (uint32_t i = 0; i < root->programs()->size(); ++i) {
    const std::string name = root->programs()->Get(i)->name()->str();
    if (name == "decode")
      plan->decodeIndex_ = i;
    else if (name == "prefill")
      plan->prefillIndex_ = static_cast<int32_t>(i);
  }
  out = std::move(plan);
  return okStatus();
}

uint64_t LoadedPlan::bytesPerCall(const kp::Program &program) const {
  if (program.bytes_per_call())
    return program.bytes_per_call();
  uint64_t total = 0;
  if (!program.dispatches())
    return 0;
  for (const kp::Dispatch *dispatch : *program.dispatches())
    total += boundBytes(dispatch->kernel());
  return total;
}

uint64_t LoadedPlan::boundBytes(uint32_t kernel) const {
  const kp::Kernel *k = root_->kernels()->Get(kernel);
  uint64_t total = 0;
  if (!k->bindings())
    return 0;
  // A range bound twice (a kernel's vector view of an activation buffer beside
  // its f32 binding) is counted once.
  std::vector<std::tuple<uint32_t, uint64_t, uint64_t>> seen;
  for (const kp::Binding *binding : *k->bindings()) {
    uint64_t size = root_->buffers()->Get(binding->buffer())->byte_size();
    uint64_t bytes = binding->byte_range() ? binding->byte_range() : size - binding->byte_offset();
    std::tuple<uint32_t, uint64_t, uint64_t> range{binding->buffer(), binding->byte_offset(), bytes};
    if (std::find(seen.begin(), seen.end(), range) != seen.end())
      continue;
    seen.push_back(range);
    total += bytes;
  }
  return total;
}

} // namespace kiln::rt
