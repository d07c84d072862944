// C entry points of plans.
#include "api/handles.h"

#include <new>

using namespace kiln::rt;

namespace {

// A 1B model's plan is a few MB (its kernels; weights live in their own file): 1 GiB leaves
// room for far larger models and refuses a weights file passed as a plan before reading it.
constexpr uint64_t kMaxPlanBytes = uint64_t(1) << 30;

kiln_status_t finishLoad(kiln_instance_t *instance, std::unique_ptr<OwnedBytes> bytes,
                         kiln_plan_t **out_plan) {
  std::unique_ptr<LoadedPlan> loaded;
  Status status = LoadedPlan::load(std::move(bytes), instance->device.physical().limits, loaded);
  if (!status.ok())
    return toCStatus(status);
  Ref<kiln_plan_s> plan = Ref<kiln_plan_s>::adopt(new (std::nothrow) kiln_plan_s());
  if (!plan)
    return toCStatus(resourceExhausted("out of host memory"));
  plan->instance = Ref<kiln_instance_s>::share(instance);
  plan->plan = std::move(loaded);
  *out_plan = plan.detach();
  return nullptr;
}

} // namespace

extern "C" {

kiln_status_t kiln_plan_load_file(kiln_instance_t *instance, const char *path, kiln_plan_t **out_plan) {
  if (!instance || !path || !out_plan)
    return toCStatus(invalidArgument("kiln_plan_load_file: instance, path and out_plan must be non-null"));
  std::unique_ptr<OwnedBytes> bytes;
  Status status = OwnedBytes::readFile(path, kMaxPlanBytes, bytes);
  if (!status.ok())
    return toCStatus(status.withContext("plan file"));
  return finishLoad(instance, std::move(bytes), out_plan);
}

kiln_status_t kiln_plan_load_memory(kiln_instance_t *instance, const void *data, size_t size,
                                    kiln_plan_t **out_plan) {
  if (!instance || (!data && size) || !out_plan)
    return toCStatus(invalidArgument("kiln_plan_load_memory: null argument"));
  std::unique_ptr<OwnedBytes> bytes;
  Status status = OwnedBytes::copyMemory(data, size, bytes);
  if (!status.ok())
    return toCStatus(status);
  return finishLoad(instance, std::move(bytes), out_plan);
}

kiln_status_t kiln_plan_info(const kiln_plan_t *plan, kiln_plan_info_t *out_info) {
  if (!plan || !out_info)
    return toCStatus(invalidArgument("kiln_plan_info: null argument"));
  const kiln::plan::Plan &root = plan->plan->root();
  *out_info = kiln_plan_info_t();
  out_info->model_family = root.model_family()->c_str();
  out_info->vocab_size = root.vocab_size();
  out_info->max_position = root.max_position();
  out_info->kernel_count = root.kernels()->size();
  out_info->buffer_count = root.buffers()->size();
  out_info->weight_count = root.weights() ? root.weights()->size() : 0;
  out_info->prefill_max_rows = plan->plan->prefill() ? plan->plan->prefill()->max_rows() : 0;
  return nullptr;
}

void kiln_plan_retain(kiln_plan_t *plan) {
  if (plan)
    plan->retain();
}

void kiln_plan_release(kiln_plan_t *plan) {
  if (plan)
    plan->release();
}

} // extern "C"
