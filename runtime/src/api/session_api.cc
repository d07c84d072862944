// C entry points of sessions.
#include "api/handles.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

using namespace kiln::rt;

extern "C" {

void kiln_session_options_init(kiln_session_options_t *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof(*options));
  options->weights_path = nullptr;
  options->temperature = 0.0f;
  options->top_p = 1.0f;
  options->seed = 0;
  options->head_gate = -INFINITY;
  options->head_top_p = 1.0f;
  options->enable_profiling = 0;
  options->profile_prefill = 0;
  options->skip_weight_check = 0;
  options->wait_mode = KILN_WAIT_AUTO;
  options->robust_kernels = KILN_ROBUST_AUTO;
  options->tokens_per_submit = 16;
  options->upload_progress = nullptr;
  options->upload_progress_user_data = nullptr;
}

kiln_status_t kiln_session_create(kiln_plan_t *plan, const kiln_session_options_t *options,
                                  kiln_session_t **out_session) {
  if (!plan || !options || !out_session)
    return toCStatus(invalidArgument("kiln_session_create: plan, options and out_session must be non-null"));
  SessionOptions sessionOptions;
  sessionOptions.weightsPath = options->weights_path ? options->weights_path : "";
  sessionOptions.temperature = options->temperature;
  sessionOptions.topP = options->top_p;
  sessionOptions.seed = options->seed;
  sessionOptions.headGate = options->head_gate;
  if (!(options->head_top_p > 0.0f && options->head_top_p <= 1.0f))
    return toCStatus(invalidArgument("kiln_session_create: head_top_p " +
                                     std::to_string(options->head_top_p) +
                                     " is not in (0, 1]"));
  sessionOptions.headTopP = options->head_top_p;
  sessionOptions.profiling = options->enable_profiling != 0;
  sessionOptions.profilePrefill = options->profile_prefill != 0;
  sessionOptions.checkWeightsFinite = options->skip_weight_check == 0;
  if (options->tokens_per_submit > 4096)
    return toCStatus(invalidArgument("kiln_session_create: tokens_per_submit " +
                                     std::to_string(options->tokens_per_submit) +
                                     " is above 4096"));
  sessionOptions.tokensPerSubmit = std::max(1u, options->tokens_per_submit);
  // Read as its integer: a caller's out-of-range value (C lets any int through) must
  // be an error here, and loading it as the enum would be undefined behaviour.
  std::underlying_type_t<kiln_wait_mode_t> waitMode;
  static_assert(sizeof waitMode == sizeof options->wait_mode);
  std::memcpy(&waitMode, &options->wait_mode, sizeof waitMode);
  switch (waitMode) {
  case KILN_WAIT_AUTO:
    sessionOptions.spinWait = plan->instance->device.physical().type != VK_PHYSICAL_DEVICE_TYPE_CPU;
    break;
  case KILN_WAIT_POLL: sessionOptions.spinWait = true; break;
  case KILN_WAIT_BLOCK: sessionOptions.spinWait = false; break;
  default:
    return toCStatus(invalidArgument("kiln_session_create: wait_mode " +
                                     std::to_string(waitMode) +
                                     " is not a kiln_wait_mode_t"));
  }
  std::underlying_type_t<kiln_robust_mode_t> robust;
  static_assert(sizeof robust == sizeof options->robust_kernels);
  std::memcpy(&robust, &options->robust_kernels, sizeof robust);
  switch (robust) {
  case KILN_ROBUST_AUTO:
    sessionOptions.robustKernels = plan->instance->device.physical().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    break;
  case KILN_ROBUST_ON: sessionOptions.robustKernels = true; break;
  case KILN_ROBUST_OFF: sessionOptions.robustKernels = false; break;
  default:
    return toCStatus(invalidArgument("kiln_session_create: robust_kernels " +
                                     std::to_string(robust) + " is not a kiln_robust_mode_t"));
  }
  // A measurement knob, not an API: how fast the GPU runs decode programs back to back
  // with no host between them (docs/performance.md). Outputs are meaningless above 1.
  if (const char *repeat = std::getenv("KILN_BENCH_DECODE_REPEAT"))
    sessionOptions.decodeRepeat =
        static_cast<uint32_t>(std::clamp(std::strtol(repeat, nullptr, 10), 1l, 1024l));
  sessionOptions.uploadProgress = options->upload_progress;
  sessionOptions.uploadProgressUserData = options->upload_progress_user_data;
  Ref<kiln_session_s> session = Ref<kiln_session_s>::adopt(new (std::nothrow) kiln_session_s());
  if (!session)
    return toCStatus(resourceExhausted("out of host memory"));
  session->plan = Ref<kiln_plan_s>::share(plan);
  Status status = Session::create(plan->instance->device, *plan->plan, sessionOptions, session->session);
  if (!status.ok())
    return toCStatus(status);
  *out_session = session.detach();
  return nullptr;
}

void kiln_session_release(kiln_session_t *session) {
  if (session)
    session->release();
}

kiln_status_t kiln_session_prefill(kiln_session_t *session, const int32_t *tokens, size_t count,
                                   kiln_step_result_t *out_result) {
  if (!session || (!tokens && count))
    return toCStatus(invalidArgument("kiln_session_prefill: null argument"));
  return toCStatus(session->session->prefill(tokens, count, out_result));
}

kiln_status_t kiln_session_step(kiln_session_t *session, int32_t token, kiln_step_result_t *out_result) {
  if (!session)
    return toCStatus(invalidArgument("kiln_session_step: session is null"));
  return toCStatus(session->session->step(token, out_result));
}

kiln_status_t kiln_session_generate(kiln_session_t *session, int32_t token, size_t count,
                                    kiln_step_result_t *out_results) {
  if (!session || (!out_results && count))
    return toCStatus(invalidArgument("kiln_session_generate: null argument"));
  return toCStatus(session->session->generate(token, count, out_results));
}

kiln_status_t kiln_session_generate_until(kiln_session_t *session, int32_t token, size_t count,
                                          int32_t stop_token, kiln_step_result_t *out_results,
                                          size_t *out_count) {
  if (!session || !out_count || (!out_results && count))
    return toCStatus(invalidArgument("kiln_session_generate_until: null argument"));
  if (stop_token < 0)
    return toCStatus(outOfRange("kiln_session_generate_until: stop token " +
                                std::to_string(stop_token) + " is negative"));
  return toCStatus(session->session->generate(token, count, out_results,
                                              static_cast<uint32_t>(stop_token), out_count));
}

kiln_status_t kiln_session_read_logprobs(kiln_session_t *session, float *out_values, size_t count) {
  if (!session || (!out_values && count))
    return toCStatus(invalidArgument("kiln_session_read_logprobs: null argument"));
  return toCStatus(session->session->readLogprobs(out_values, count));
}

kiln_status_t kiln_session_set_sampling(kiln_session_t *session, float temperature, float top_p) {
  if (!session)
    return toCStatus(invalidArgument("kiln_session_set_sampling: session is null"));
  return toCStatus(session->session->setSampling(temperature, top_p));
}

kiln_status_t kiln_session_reset(kiln_session_t *session) {
  if (!session)
    return toCStatus(invalidArgument("kiln_session_reset: session is null"));
  return toCStatus(session->session->reset());
}

uint32_t kiln_session_position(const kiln_session_t *session) {
  return session ? session->session->position() : 0;
}

kiln_status_t kiln_session_seek(kiln_session_t *session, uint32_t position) {
  if (!session)
    return toCStatus(invalidArgument("kiln_session_seek: session is null"));
  return toCStatus(session->session->seek(position));
}

kiln_status_t kiln_session_stats(const kiln_session_t *session, kiln_session_stats_t *out_stats) {
  if (!session || !out_stats)
    return toCStatus(invalidArgument("kiln_session_stats: null argument"));
  session->session->stats(*out_stats);
  return nullptr;
}

kiln_status_t kiln_session_profile(const kiln_session_t *session, kiln_dispatch_profile_t *out_entries,
                                   size_t capacity, size_t *out_count) {
  if (!session || !out_count || (capacity && !out_entries))
    return toCStatus(invalidArgument("kiln_session_profile: null argument"));
  return toCStatus(session->session->profile(out_entries, capacity, *out_count));
}

kiln_status_t kiln_session_time_kernels(kiln_session_t *session, uint32_t repetitions,
                                        uint64_t flush_bytes, kiln_kernel_timing_t *out_entries,
                                        size_t capacity, size_t *out_count) {
  if (!session || !out_count || (capacity && !out_entries))
    return toCStatus(invalidArgument("kiln_session_time_kernels: null argument"));
  return toCStatus(
      session->session->timeKernels(repetitions, flush_bytes, out_entries, capacity, *out_count));
}

} // extern "C"
