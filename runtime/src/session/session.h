// Session: one decoding stream on a device (HOUSE.md §3 steps 3-9). Created with every
// resource of the plan (buffers, weights, pipelines, descriptor sets, recorded command
// buffers); per call it only writes the parameter block, submits, waits and samples.
// A failed Vulkan call marks the session failed: later calls return that status.
// Thread safety: one thread at a time.
#ifndef KILN_RUNTIME_SESSION_SESSION_H
#define KILN_RUNTIME_SESSION_SESSION_H

#include "plan/loaded_plan.h"
#include "session/param_block.h"
#include "session/pick_batches.h"
#include "session/recorder.h"
#include "session/sampler.h"
#include "vulkan/buffer.h"
#include "vulkan/command_buffer.h"
#include "vulkan/descriptor_set.h"
#include "vulkan/device.h"
#include "vulkan/fence.h"
#include "vulkan/pipeline.h"
#include "vulkan/shader_module.h"
#include "vulkan/timestamp_query.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::rt {

struct SessionOptions {
  std::string weightsPath;
  float temperature = 0;
  float topP = 1;
  uint64_t seed = 0;
  float headGate = 0; // -inf by default (set by the API)
  float headTopP = 1; // a gated head keeps the clusters reaching it; 1 = all
  bool profiling = false;
  /// With profiling: the prefill program's dispatches are timed, not decode's.
  bool profilePrefill = false;
  bool checkWeightsFinite = true; // scan F16/F32 weights for NaN/Inf at load
  bool spinWait = false;           // poll the fence instead of blocking in the driver
  bool robustKernels = false;      // clamp every indexed access of the kernels
  uint32_t decodeRepeat = 1;       // benchmark only: decode recorded this many times a call
  uint32_t tokensPerSubmit = 16;   // generate(): greedy steps one submission may run
  kiln_progress_fn_t uploadProgress = nullptr;
  void *uploadProgressUserData = nullptr;
};

class Session {
public:
  static Status create(const vk::Device &device, const LoadedPlan &plan,
                       const SessionOptions &options, std::unique_ptr<Session> &out);
  ~Session();

  Status prefill(const int32_t *tokens, size_t count, kiln_step_result_t *result);
  Status step(int32_t token, kiln_step_result_t *result);
  /// Feeds `token`, then each token picked, `count` steps; results[i] is the pick
  /// after step i. Greedy with a plan that picks on the device: up to
  /// tokensPerSubmit steps a submission; otherwise one step() a token.
  /// `count` steps, each fed the pick of the one before; with `stopToken`, the
  /// steps end after the one that picks it (`produced` says how many ran).
  Status generate(int32_t token, size_t count, kiln_step_result_t *results,
                  std::optional<uint32_t> stopToken = std::nullopt,
                  size_t *produced = nullptr);
  Status readLogprobs(float *out, size_t count) const;
  Status reset();
  /// kiln_session_seek: the next token takes `position`, over the state held.
  Status seek(uint32_t position);
  /// New temperature and top_p for later calls (checked as at creation).
  Status setSampling(float temperature, float topP);
  uint32_t position() const { return position_; }
  void stats(kiln_session_stats_t &out) const;
  Status profile(kiln_dispatch_profile_t *out, size_t capacity, size_t &count) const;
  /// kiln_session_time_kernels.
  Status timeKernels(uint32_t repetitions, uint64_t flushBytes, kiln_kernel_timing_t *out,
                     size_t capacity, size_t &count);

private:
  struct ProgramState {
    const kiln::plan::Program *program = nullptr;
    vk::CommandBuffer commands; // a call after the session's first (CallKind::Later)
    /// The session's first call, where the program has dispatches only it runs
    /// (hasFirst; its timestamps are the whole program's, never per dispatch).
    vk::CommandBuffer firstCommands;
    bool hasFirst = false;
    std::unique_ptr<vk::TimestampQueries> timestamps;
    TimestampMode timestampMode = TimestampMode::None;
    RecordCounts counts;
  };

  Session(const vk::Device &device, const LoadedPlan &plan, const SessionOptions &options);
  Status initialize();
  static Status checkSampling(float temperature, float topP);
  Status allocateBuffers();
  Status zeroBuffers(bool stateOnly);
  Status uploadWeights();
  Status createPipelines();
  Status recordPrograms();
  /// The parameter values of a call of `rows` tokens at `position`, with the
  /// session's options (head gate, head top-p, sampling, generator).
  CallValues sessionValues(const int32_t *tokens, uint32_t rows, uint32_t position);
  /// Runs `state` on `rows` tokens at the current position and reads back.
  Status runCall(ProgramState &state, const int32_t *tokens, uint32_t rows, bool decoding);
  /// Copies `program`'s readback out of the device's buffer.
  Status takeReadback(const kiln::plan::Program &program);
  /// Turns a logits readback into log-probabilities (once per call).
  Status finishReadback();
  Status sample(kiln_step_result_t *result);
  Status checkTokens(const int32_t *tokens, size_t count) const;
  /// `steps` steps in one submission, each fed the device's pick of the one
  /// before (PickBatches); `decoding` counts them as decode, else as prefill.
  /// With `stopToken` (a plan and device that can stop on the device), the steps
  /// after the one that picks it do not run, and `used` says how many did; the
  /// session then stands after them (position and generator).
  Status runPickBatch(int32_t token, uint32_t steps, kiln_step_result_t *results,
                      bool decoding = true, std::optional<uint32_t> stopToken = std::nullopt,
                      uint32_t *used = nullptr);
  /// The device draws at the session's temperature (the plan's sampling site is
  /// Device and the session can run pick batches): at a temperature above 0
  /// every token comes from a pick batch, so a seed gives the same tokens at
  /// any tokens-per-submit.
  bool drawsOnDevice() const;
  /// Marks the session failed with `status` (when it is a failure) and returns it.
  Status fail(const Status &status);

  const vk::Device &device_;
  const LoadedPlan &plan_;
  SessionOptions options_;
  Status failed_;

  std::vector<std::unique_ptr<vk::Buffer>> buffers_;
  std::vector<std::unique_ptr<vk::ShaderModule>> modules_;
  std::vector<std::unique_ptr<vk::Pipeline>> pipelines_;
  /// Plan kernel -> its pipeline in pipelines_ (kernels of one code share one).
  std::vector<size_t> kernelPipeline_;
  vk::DescriptorSets sets_;
  vk::CommandBuffer transfer_;
  vk::Fence fence_;
  ProgramState decode_;
  std::unique_ptr<ProgramState> prefill_;
  RecordInputs recordInputs_;
  std::unique_ptr<PickBatches> batches_; // null: the plan or options rule it out

  uint32_t position_ = 0;
  /// No call has run since the state was created or reset: the next one runs the
  /// plan's first-call dispatches (DispatchCalls::First).
  bool firstCall_ = true;
  SplitMix64 generator_;
  std::vector<float> logprobs_;
  bool haveLogprobs_ = false;
  bool readbackIsLogits_ = false;

  uint64_t tokens_ = 0;
  uint64_t calls_ = 0;
  double totalMs_ = 0;
  // The same for step() alone (generated tokens; prefill's first call also
  // pays the device's warm-up) and for prefill().
  uint64_t decodeTokens_ = 0, prefillTokens_ = 0;
  double decodeMs_ = 0, prefillMs_ = 0;
  std::vector<double> profileMs_;   // per decode dispatch
  uint64_t profiledCalls_ = 0;
  double profileSpanMs_ = 0; // first dispatch start to last end, summed over calls
  // The session's first profiled call, kept apart: drivers finish compiling
  // pipelines and clocks ramp up inside it (on an H100, a profile of 18 calls
  // of embryo-1b that counted it read 3.4x kiln-bench's steady ms/token).
  // Reported only while it is the only one.
  std::vector<double> warmupProfileMs_;
  double warmupSpanMs_ = 0;
  bool profileWarmedUp_ = false;
  double decodeSubmitMs_ = 0;   // host time inside vkQueueSubmit, decode calls
  double decodeGpuMs_ = 0;      // GPU time of whole decode programs (not profiling)
  uint64_t decodeGpuCalls_ = 0;
  uint64_t decodeCalls_ = 0;
  std::vector<std::string> profileLabels_;
  std::vector<uint32_t> profileDispatches_; // the plan's index of each profiled dispatch
  std::vector<std::string> timedLabels_; // the last timeKernels' labels, by entry
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_SESSION_SESSION_H
