#include "session/session.h"

#include "plan/spirv_robust.h"
#include "session/kernel_timer.h"
#include "session/param_block.h"
#include "vulkan/queue.h"
#include "weights/staging_uploader.h"
#include "weights/weight_binder.h"

#include "kiln/IO/Safetensors.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <new>
#include <sys/stat.h>

namespace kiln::rt {
namespace kp = kiln::plan;

namespace {

constexpr uint64_t kFenceTimeoutNs = 300ull * 1000000000ull;
constexpr uint64_t kStagingBytes = 64ull << 20;

std::string bufferWhat(const kp::Plan &plan, size_t index) {
  const kp::Buffer *buffer = plan.buffers()->Get(index);
  std::string what = "buffer " + std::to_string(index);
  if (buffer->name() && buffer->name()->size())
    what += " '" + buffer->name()->str() + "'";
  return what;
}

bool isHostVisible(kp::BufferKind kind) {
  return kind == kp::BufferKind::Params || kind == kp::BufferKind::Readback;
}

} // namespace

Session::Session(const vk::Device &device, const LoadedPlan &plan, const SessionOptions &options)
    : device_(device), plan_(plan), options_(options), generator_(options.seed) {}

Session::~Session() {
  // Nothing may be destroyed while the device still uses it.
  (void)device_.waitIdle();
}

Status Session::create(const vk::Device &device, const LoadedPlan &plan,
                       const SessionOptions &options, std::unique_ptr<Session> &out) {
  std::unique_ptr<Session> session(new (std::nothrow) Session(device, plan, options));
  if (!session)
    return resourceExhausted("out of host memory");
  KILN_RETURN_IF_ERROR(session->initialize());
  out = std::move(session);
  return okStatus();
}

Status Session::checkSampling(float temperature, float topP) {
  if (!(topP > 0 && topP <= 1))
    return invalidArgument("session: top_p " + std::to_string(topP) + " must be in (0, 1]");
  if (!(temperature >= 0) || std::isinf(temperature))
    return invalidArgument("session: temperature " + std::to_string(temperature) +
                           " must be finite and >= 0");
  return okStatus();
}

Status Session::setSampling(float temperature, float topP) {
  KILN_RETURN_IF_ERROR(checkSampling(temperature, topP));
  options_.temperature = temperature;
  options_.topP = topP;
  return okStatus();
}

Status Session::initialize() {
  KILN_RETURN_IF_ERROR(checkSampling(options_.temperature, options_.topP));
  KILN_RETURN_IF_ERROR(transfer_.create(device_.handle(), device_.queueFamily()));
  KILN_RETURN_IF_ERROR(fence_.create(device_.handle()));
  KILN_RETURN_IF_ERROR(allocateBuffers());
  KILN_RETURN_IF_ERROR(zeroBuffers(/*stateOnly=*/false));
  KILN_RETURN_IF_ERROR(uploadWeights());
  KILN_RETURN_IF_ERROR(createPipelines());
  KILN_RETURN_IF_ERROR(recordPrograms());
  logprobs_.assign(plan_.root().vocab_size(), 0.0f);
  return okStatus();
}

Status Session::allocateBuffers() {
  const kp::Plan &plan = plan_.root();
  for (size_t i = 0; i < plan.buffers()->size(); ++i) {
    const kp::Buffer *buffer = plan.buffers()->Get(i);
    auto made = std::make_unique<vk::Buffer>();
    const vk::MemoryPlacement placement =
        buffer->kind() == kp::BufferKind::Readback ? vk::MemoryPlacement::HostReadback
        : isHostVisible(buffer->kind())             ? vk::MemoryPlacement::HostVisible
                                                    : vk::MemoryPlacement::DeviceLocal;
    KILN_RETURN_IF_ERROR(made->create(device_, buffer->byte_size(), placement,
                                      "session " + bufferWhat(plan, i)));
    buffers_.push_back(std::move(made));
  }
  return okStatus();
}

Status Session::zeroBuffers(bool stateOnly) {
  const kp::Plan &plan = plan_.root();
  KILN_RETURN_IF_ERROR(transfer_.begin(/*oneTimeSubmit=*/true));
  for (size_t i = 0; i < plan.buffers()->size(); ++i) {
    const kp::Buffer *buffer = plan.buffers()->Get(i);
    if (!buffer->zero_initialised() || (stateOnly && buffer->kind() != kp::BufferKind::State))
      continue;
    if (isHostVisible(buffer->kind())) {
      std::memset(buffers_[i]->mapped(), 0, buffer->byte_size());
      KILN_RETURN_IF_ERROR(buffers_[i]->flush());
    } else {
      vkCmdFillBuffer(transfer_.handle(), buffers_[i]->handle(), 0, VK_WHOLE_SIZE, 0);
    }
  }
  transfer_.barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                    VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
  KILN_RETURN_IF_ERROR(transfer_.end());
  KILN_RETURN_IF_ERROR(vk::submit(device_.queue(), transfer_.handle(), fence_.handle()));
  return fence_.waitAndReset(kFenceTimeoutNs);
}

Status Session::uploadWeights() {
  const kp::Plan &plan = plan_.root();
  const size_t count = plan.weights() ? plan.weights()->size() : 0;
  struct stat info;
  if (options_.weightsPath.empty())
    return invalidArgument("session: no weights file given (weights_path)");
  if (::stat(options_.weightsPath.c_str(), &info) != 0)
    return notFound("weights '" + options_.weightsPath + "': file not found");
  auto opened = kiln::io::SafetensorsFile::open(options_.weightsPath);
  if (!opened)
    return invalidArgument("weights: " + opened.error().message());
  const kiln::io::SafetensorsFile &file = opened.value();
  KILN_RETURN_IF_ERROR(checkWeightsFile(file, plan));
  if (options_.checkWeightsFinite)
    KILN_RETURN_IF_ERROR(checkWeightsFinite(file, plan));
  if (count == 0)
    return okStatus();

  // Progress counts the file's bytes (placing may change the size on the device); the
  // last report waits for the device to have everything.
  uint64_t totalBytes = 0, doneBytes = 0;
  for (size_t i = 0; i < count; ++i)
    totalBytes += file.find(plan.weights()->Get(i)->name()->str())->byteSize;
  auto report = [&](uint64_t done) {
    if (options_.uploadProgress)
      options_.uploadProgress(options_.uploadProgressUserData, done, totalBytes);
  };
  report(0);

  StagingUploader uploader;
  KILN_RETURN_IF_ERROR(uploader.create(device_, kStagingBytes, transfer_, fence_));
  std::vector<uint8_t> placed;
  for (size_t i = 0; i < count; ++i) {
    const kp::WeightTensor *weight = plan.weights()->Get(i);
    const kiln::io::TensorView *tensor = file.find(weight->name()->str());
    if (i)
      report(doneBytes);
    doneBytes += tensor->byteSize;
    // Copy-like layouts go straight from the mapped file; the others are converted.
    if ((weight->layout() == kp::WeightLayout::Copy || weight->layout() == kp::WeightLayout::F32 ||
         ((weight->layout() == kp::WeightLayout::F16RowMajor ||
           weight->layout() == kp::WeightLayout::I8RowMajor) &&
          weight->row_pitch_bytes() == 0))) {
      KILN_RETURN_IF_ERROR(uploader.upload(buffers_[weight->buffer()]->handle(), weight->byte_offset(),
                                           static_cast<const uint8_t *>(tensor->data),
                                           tensor->byteSize));
      continue;
    }
    KILN_RETURN_IF_ERROR(placeWeight(*tensor, *weight, placed));
    KILN_RETURN_IF_ERROR(uploader.upload(buffers_[weight->buffer()]->handle(), weight->byte_offset(),
                                         placed.data(), placed.size()));
  }
  KILN_RETURN_IF_ERROR(uploader.finish());
  report(totalBytes);
  return okStatus();
}

Status Session::createPipelines() {
  const kp::Plan &plan = plan_.root();
  const size_t kernelCount = plan.kernels()->size();
  uint32_t storage = 0, uniform = 0;
  std::vector<VkDescriptorSetLayout> layouts;
  // Kernels with the same code and interface (one compiled kernel bound to
  // another layer's buffers) share one pipeline; each keeps its own set.
  std::map<std::string, size_t> pipelineWithKey;
  kernelPipeline_.clear();
  for (size_t k = 0; k < kernelCount; ++k) {
    const kp::Kernel *kernel = plan.kernels()->Get(k);
    std::string key = kernel->entry_point()->str();
    key.push_back('\0');
    key.append(reinterpret_cast<const char *>(kernel->spirv()->data()),
               kernel->spirv()->size() * sizeof(uint32_t));
    auto appendWord = [&](uint32_t word) {
      key.append(reinterpret_cast<const char *>(&word), sizeof word);
    };
    appendWord(kernel->push_constant_bytes());
    appendWord(kernel->required_subgroup_size());
    // A set per kernel, shared pipeline or not: count its descriptors.
    if (kernel->bindings())
      for (const kp::Binding *binding : *kernel->bindings()) {
        appendWord(binding->binding());
        appendWord(static_cast<uint32_t>(binding->kind()));
        (binding->kind() == kp::DescriptorKind::UniformBuffer ? uniform : storage)++;
      }
    auto [it, fresh] = pipelineWithKey.try_emplace(std::move(key), pipelines_.size());
    if (fresh) {
      std::string path = "plan kernels[" + std::to_string(k) + "] '" + kernel->name()->str() + "'";
      auto module = std::make_unique<vk::ShaderModule>();
      const uint32_t *words = kernel->spirv()->data();
      size_t wordCount = kernel->spirv()->size();
      std::vector<uint32_t> bounded;
      if (options_.robustKernels) {
        KILN_RETURN_IF_ERROR(clampKernelAccesses(words, wordCount, path, bounded));
        words = bounded.data();
        wordCount = bounded.size();
      }
      KILN_RETURN_IF_ERROR(module->create(device_.handle(), words, wordCount).withContext(path));
      vk::PipelineDescription description;
      description.module = module->handle();
      description.entryPoint = kernel->entry_point()->str();
      description.pushConstantBytes = kernel->push_constant_bytes();
      if (kernel->required_subgroup_size() != device_.physical().limits.subgroupSize)
        description.requiredSubgroupSize = kernel->required_subgroup_size();
      if (kernel->bindings())
        for (const kp::Binding *binding : *kernel->bindings())
          description.bindings.push_back(
              {binding->binding(),
               binding->kind() == kp::DescriptorKind::UniformBuffer
                   ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                   : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
               1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
      auto pipeline = std::make_unique<vk::Pipeline>();
      KILN_RETURN_IF_ERROR(pipeline->create(device_.handle(), description).withContext(path));
      modules_.push_back(std::move(module));
      pipelines_.push_back(std::move(pipeline));
    }
    kernelPipeline_.push_back(it->second);
    layouts.push_back(pipelines_[it->second]->setLayout());
  }
  KILN_RETURN_IF_ERROR(sets_.create(device_.handle(), layouts, storage, uniform));
  for (size_t k = 0; k < kernelCount; ++k) {
    const kp::Kernel *kernel = plan.kernels()->Get(k);
    if (!kernel->bindings())
      continue;
    for (const kp::Binding *binding : *kernel->bindings()) {
      bool isUniform = binding->kind() == kp::DescriptorKind::UniformBuffer;
      sets_.writeBuffer(k, binding->binding(),
                        isUniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                        buffers_[binding->buffer()]->handle(), binding->byte_offset(),
                        binding->byte_range() ? binding->byte_range() : VK_WHOLE_SIZE);
    }
  }
  return okStatus();
}

Status Session::recordPrograms() {
  const kp::Plan &plan = plan_.root();
  RecordInputs inputs;
  for (const auto &buffer : buffers_)
    inputs.buffers.push_back(buffer->handle());
  for (size_t k = 0; k < kernelPipeline_.size(); ++k) {
    const vk::Pipeline &pipeline = *pipelines_[kernelPipeline_[k]];
    inputs.pipelines.push_back(pipeline.handle());
    inputs.layouts.push_back(pipeline.layout());
    inputs.sets.push_back(sets_.set(k));
  }
  auto recordOne = [&](ProgramState &state, const kp::Program &program, TimestampMode mode,
                       uint32_t repeat) -> Status {
    state.program = &program;
    KILN_RETURN_IF_ERROR(state.commands.create(device_.handle(), device_.queueFamily()));
    // What a call after the first records (a first call may record more).
    const uint32_t later = recordedDispatches(program, CallKind::Later);
    // Without timestamp support only profiling is an error; the program's GPU time
    // is then simply not reported.
    if (mode == TimestampMode::WholeProgram && device_.physical().timestampValidBits == 0)
      mode = TimestampMode::None;
    if (mode == TimestampMode::PerDispatch && later == 0)
      mode = TimestampMode::None;
    if (mode != TimestampMode::None) {
      state.timestamps = std::make_unique<vk::TimestampQueries>();
      KILN_RETURN_IF_ERROR(state.timestamps->create(
          device_.handle(), mode == TimestampMode::PerDispatch ? 2 * later : 2,
          device_.physical().timestampPeriodNs, device_.physical().timestampValidBits));
    }
    state.timestampMode = mode;
    const std::string context = "recording program '" + program.name()->str() + "'";
    KILN_RETURN_IF_ERROR(recordProgram(state.commands, plan, program, inputs,
                                       state.timestamps.get(), mode, repeat, CallKind::Later,
                                       state.counts)
                             .withContext(context));
    // The first call's own recording: per-dispatch timestamps stay with the
    // later calls' dispatches, so it times only the whole program, if anything.
    state.hasFirst = hasFirstCallDispatches(program);
    if (!state.hasFirst)
      return okStatus();
    KILN_RETURN_IF_ERROR(state.firstCommands.create(device_.handle(), device_.queueFamily()));
    const TimestampMode firstMode =
        mode == TimestampMode::WholeProgram ? mode : TimestampMode::None;
    RecordCounts firstCounts;
    return recordProgram(state.firstCommands, plan, program, inputs, state.timestamps.get(),
                         firstMode, repeat, CallKind::First, firstCounts)
        .withContext(context + " for a first call");
  };
  if (options_.profiling && options_.profilePrefill && !plan_.prefill())
    return invalidArgument("profile_prefill: the plan has no \"prefill\" program");
  // The profiled program's dispatches get a timestamp pair each.
  const bool profileDecode = options_.profiling && !options_.profilePrefill;
  const kp::Program *profiled =
      !options_.profiling ? nullptr : profileDecode ? &plan_.decode() : plan_.prefill();
  KILN_RETURN_IF_ERROR(recordOne(decode_, plan_.decode(),
                                 profileDecode ? TimestampMode::PerDispatch
                                               : TimestampMode::WholeProgram,
                                 std::max(1u, options_.decodeRepeat)));
  if (profiled && profiled->dispatches()) {
    for (uint32_t d = 0; d < profiled->dispatches()->size(); ++d) {
      const kp::Dispatch *dispatch = profiled->dispatches()->Get(d);
      if (!recordedIn(*dispatch, CallKind::Later))
        continue;
      profileDispatches_.push_back(d);
      profileLabels_.push_back(dispatch->label() && dispatch->label()->size()
                                   ? dispatch->label()->str()
                                   : plan.kernels()->Get(dispatch->kernel())->name()->str());
    }
    profileMs_.assign(profileLabels_.size(), 0.0);
  }
  if (const kp::Program *prefill = plan_.prefill()) {
    prefill_ = std::make_unique<ProgramState>();
    KILN_RETURN_IF_ERROR(recordOne(*prefill_, *prefill,
                                   profiled == prefill ? TimestampMode::PerDispatch
                                                       : TimestampMode::None,
                                   1));
  }
  recordInputs_ = std::move(inputs);
  // Steps run many to a submission when the plan picks on the device;
  // profiling and the repeat knob measure single calls. A plan that draws on
  // the device gets batches even at one token a submission: its draws at a
  // temperature above 0 always come from them (drawsOnDevice()).
  // (Temperature is checked per call: kiln_session_set_sampling changes it.)
  const bool draws = plan.sampling() && plan.sampling()->site() == kp::SamplingSite::Device;
  if (plan.sampling() && plan.sampling()->greedy() && (options_.tokensPerSubmit > 1 || draws) &&
      !options_.profiling && options_.decodeRepeat <= 1) {
    batches_ = std::make_unique<PickBatches>();
    KILN_RETURN_IF_ERROR(batches_->create(device_, plan, plan_.decode(), options_.tokensPerSubmit));
  }
  return okStatus();
}

Status Session::fail(const Status &status) {
  if (!status.ok() && failed_.ok())
    failed_ = status.withContext("session failed");
  return failed_.ok() ? status : failed_;
}

Status Session::checkTokens(const int32_t *tokens, size_t count) const {
  const uint32_t vocab = plan_.root().vocab_size();
  for (size_t i = 0; i < count; ++i)
    if (tokens[i] < 0 || static_cast<uint32_t>(tokens[i]) >= vocab)
      return outOfRange("token " + std::to_string(tokens[i]) + " (at " + std::to_string(i) +
                        ") out of range: vocab_size is " + std::to_string(vocab));
  const uint64_t end = static_cast<uint64_t>(position_) + count;
  if (end > plan_.root().max_position())
    return outOfRange("position " + std::to_string(end - 1) + " would reach the plan's max_position " +
                      std::to_string(plan_.root().max_position()));
  return okStatus();
}

CallValues Session::sessionValues(const int32_t *tokens, uint32_t rows, uint32_t position) {
  const kp::Plan &plan = plan_.root();
  CallValues values;
  values.tokens = tokens;
  values.rowCount = rows;
  values.position = position;
  values.headGate = plan.sampling() && plan.sampling()->head_gate() == kp::HeadGateRule::SessionOption
                        ? options_.headGate
                        : -INFINITY;
  values.headTopP = options_.headTopP;
  values.temperature = options_.temperature;
  values.topP = options_.topP;
  values.generator = &generator_;
  return values;
}

Status Session::runCall(ProgramState &state, const int32_t *tokens, uint32_t rows,
                        bool decoding) {
  const kp::Plan &plan = plan_.root();
  const vk::Buffer &params = *buffers_[plan.params()->buffer()];
  CallValues values = sessionValues(tokens, rows, position_);
  writeParamBlock(*plan.params(), params.mapped(), values);
  KILN_RETURN_IF_ERROR(params.flush());

  const bool first = firstCall_ && state.hasFirst;
  firstCall_ = false;
  auto start = std::chrono::steady_clock::now();
  KILN_RETURN_IF_ERROR(vk::submit(device_.queue(),
                                  first ? state.firstCommands.handle() : state.commands.handle(),
                                  fence_.handle()));
  auto submitted = std::chrono::steady_clock::now();
  KILN_RETURN_IF_ERROR(options_.spinWait ? fence_.spinAndReset(kFenceTimeoutNs)
                                         : fence_.waitAndReset(kFenceTimeoutNs));
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (decoding)
    decodeSubmitMs_ += std::chrono::duration<double, std::milli>(submitted - start).count();
  totalMs_ += ms;
  (decoding ? decodeMs_ : prefillMs_) += ms;
  (decoding ? decodeTokens_ : prefillTokens_) += rows;
  ++calls_;
  decodeCalls_ += decoding;
  tokens_ += rows;
  position_ += rows;

  if (state.timestampMode == TimestampMode::PerDispatch && !first) {
    std::vector<double> ms;
    double span = 0;
    KILN_RETURN_IF_ERROR(state.timestamps->readPairs(ms, &span));
    if (!profileWarmedUp_) {
      profileWarmedUp_ = true;
      warmupProfileMs_ = ms;
      warmupProfileMs_.resize(profileMs_.size(), 0.0);
      warmupSpanMs_ = span;
    } else {
      profileSpanMs_ += span;
      for (size_t i = 0; i < ms.size() && i < profileMs_.size(); ++i)
        profileMs_[i] += ms[i];
      ++profiledCalls_;
    }
  } else if (state.timestampMode == TimestampMode::WholeProgram && decoding) {
    std::vector<double> ms;
    KILN_RETURN_IF_ERROR(state.timestamps->readPairs(ms));
    decodeGpuMs_ += ms[0];
    ++decodeGpuCalls_;
  }

  return takeReadback(*state.program);
}

Status Session::takeReadback(const kp::Program &program) {
  const kp::Readback *readback = program.readback();
  haveLogprobs_ = false;
  if (!readback)
    return okStatus();
  const vk::Buffer &target = *buffers_[readback->buffer()];
  KILN_RETURN_IF_ERROR(target.invalidate());
  logprobs_.resize(readback->count());
  std::memcpy(logprobs_.data(), target.mapped() + readback->byte_offset(), 4ull * readback->count());
  haveLogprobs_ = true;
  readbackIsLogits_ = readback->values() == kp::ReadbackValues::Logits;
  return okStatus();
}

Status Session::finishReadback() {
  if (!haveLogprobs_ || !readbackIsLogits_)
    return okStatus();
  readbackIsLogits_ = false;
  Status converted = logSoftmaxInPlace(logprobs_);
  if (!converted.ok()) {
    haveLogprobs_ = false;
    return converted.withContext("readback");
  }
  return okStatus();
}

Status Session::sample(kiln_step_result_t *result) {
  if (!result)
    return okStatus();
  SamplingOptions sampling{options_.temperature, options_.topP};
  int32_t token = 0;
  float logprob = 0;
  KILN_RETURN_IF_ERROR(sampleToken(logprobs_, sampling, generator_, token, logprob));
  result->token = token;
  result->logprob = logprob;
  return okStatus();
}

bool Session::drawsOnDevice() const {
  const kp::Plan &plan = plan_.root();
  return batches_ && plan.sampling() && plan.sampling()->site() == kp::SamplingSite::Device;
}

Status Session::prefill(const int32_t *tokens, size_t count, kiln_step_result_t *result) {
  if (!failed_.ok())
    return failed_;
  if (count == 0)
    return invalidArgument("prefill: no tokens");
  KILN_RETURN_IF_ERROR(checkTokens(tokens, count));
  // A draw on the device takes the prompt's last row through a pick batch.
  const bool lastRowDraws =
      result && options_.temperature > 0 && drawsOnDevice() && !prefill_;
  const size_t fedRows = lastRowDraws ? count - 1 : count;
  size_t done = 0;
  while (done < fedRows) {
    ProgramState &state = prefill_ ? *prefill_ : decode_;
    const uint32_t rows = static_cast<uint32_t>(std::min<size_t>(fedRows - done, state.program->max_rows()));
    KILN_RETURN_IF_ERROR(fail(runCall(state, tokens + done, rows, /*decoding=*/false)));
    done += rows;
  }
  if (lastRowDraws)
    return runPickBatch(tokens[count - 1], 1, result, /*decoding=*/false);
  // A bad readback (NaN, nothing finite) is a result, not a broken device: the session
  // stays usable.
  KILN_RETURN_IF_ERROR(finishReadback());
  return sample(result);
}

Status Session::step(int32_t token, kiln_step_result_t *result) {
  if (!failed_.ok())
    return failed_;
  KILN_RETURN_IF_ERROR(checkTokens(&token, 1));
  if (result && options_.temperature > 0 && drawsOnDevice())
    return runPickBatch(token, 1, result);
  KILN_RETURN_IF_ERROR(fail(runCall(decode_, &token, 1, /*decoding=*/true)));
  KILN_RETURN_IF_ERROR(finishReadback());
  return sample(result);
}

Status Session::generate(int32_t token, size_t count, kiln_step_result_t *results,
                         std::optional<uint32_t> stopToken, size_t *produced) {
  if (produced)
    *produced = 0;
  if (!failed_.ok())
    return failed_;
  if (!results)
    return invalidArgument("generate: out_results must be non-null");
  if (stopToken && *stopToken >= plan_.root().vocab_size())
    return outOfRange("generate: stop token " + std::to_string(*stopToken) +
                      " out of range: vocab_size is " +
                      std::to_string(plan_.root().vocab_size()));
  // Greedy steps batch when the session asks for more than one a submission;
  // draws batch whenever the device makes them. A stop token needs the device to
  // skip what follows it in a submission; without that, one step a submission.
  const bool batched =
      batches_ &&
      (options_.temperature == 0 ? options_.tokensPerSubmit > 1 : drawsOnDevice()) &&
      (!stopToken || batches_->canStopOnDevice());
  size_t done = 0;
  bool stopped = false;
  while (done < count && !stopped) {
    if (!batched) {
      KILN_RETURN_IF_ERROR(step(token, &results[done]));
      token = results[done++].token;
      stopped = stopToken && static_cast<uint32_t>(token) == *stopToken;
      continue;
    }
    const uint32_t steps =
        static_cast<uint32_t>(std::min<size_t>(count - done, batches_->maxSteps()));
    uint32_t used = steps;
    KILN_RETURN_IF_ERROR(
        runPickBatch(token, steps, results + done, /*decoding=*/true, stopToken, &used));
    done += used;
    token = results[done - 1].token;
    stopped = stopToken && static_cast<uint32_t>(token) == *stopToken;
  }
  if (produced)
    *produced = done;
  return okStatus();
}

Status Session::runPickBatch(int32_t token, uint32_t steps, kiln_step_result_t *results,
                             bool decoding, std::optional<uint32_t> stopToken,
                             uint32_t *used) {
  const kp::Plan &plan = plan_.root();
  // The fed token, and room for every step before max_position.
  KILN_RETURN_IF_ERROR(checkTokens(std::vector<int32_t>(steps, token).data(), steps));
  const SplitMix64 generatorBefore = generator_;
  uint32_t randomPerStep = 0;
  for (uint32_t step = 0; step < steps; ++step) {
    // The device overwrites the token for steps after the first.
    CallValues values = sessionValues(&token, 1, position_ + step);
    if (stopToken)
      values.stopToken = *stopToken;
    writeParamBlock(*plan.params(), batches_->block(step), values);
    if (step == 0)
      randomPerStep = generatorBefore.distance(generator_);
  }
  KILN_RETURN_IF_ERROR(batches_->flushBlocks());
  VkCommandBuffer commands;
  KILN_RETURN_IF_ERROR(fail(batches_->commandsFor(
      steps, stopToken.has_value(), firstCall_ ? CallKind::First : CallKind::Later,
      recordInputs_, commands)));
  firstCall_ = false;

  auto start = std::chrono::steady_clock::now();
  KILN_RETURN_IF_ERROR(fail(vk::submit(device_.queue(), commands, fence_.handle())));
  auto submitted = std::chrono::steady_clock::now();
  KILN_RETURN_IF_ERROR(fail(options_.spinWait ? fence_.spinAndReset(kFenceTimeoutNs)
                                              : fence_.waitAndReset(kFenceTimeoutNs)));
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  KILN_RETURN_IF_ERROR(batches_->readResults(steps, results));
  // Steps after a stop ran nothing on the device: the session stands after the stop,
  // its generator as if only those steps had been written.
  uint32_t ran = steps;
  if (stopToken)
    for (uint32_t step = 0; step < steps; ++step)
      if (static_cast<uint32_t>(results[step].token) == *stopToken) {
        ran = step + 1;
        break;
      }
  if (ran < steps) {
    generator_ = generatorBefore;
    generator_.skip(uint64_t{randomPerStep} * ran);
  }
  if (used)
    *used = ran;
  totalMs_ += ms;
  if (decoding) {
    decodeSubmitMs_ += std::chrono::duration<double, std::milli>(submitted - start).count();
    decodeMs_ += ms;
    decodeTokens_ += ran;
    ++decodeCalls_;
  } else {
    prefillMs_ += ms;
    prefillTokens_ += ran;
  }
  tokens_ += ran;
  position_ += ran;
  ++calls_;

  KILN_RETURN_IF_ERROR(takeReadback(plan_.decode()));
  KILN_RETURN_IF_ERROR(finishReadback());
  const uint32_t vocab = plan.vocab_size();
  for (uint32_t step = 0; step < ran; ++step)
    if (static_cast<uint32_t>(results[step].token) >= vocab)
      return failedPrecondition("step " + std::to_string(step) +
                                " of the submission has no finite log-probability to pick "
                                "(all -inf, or a NaN)");
  return okStatus();
}

Status Session::readLogprobs(float *out, size_t count) const {
  if (!failed_.ok())
    return failed_;
  if (!haveLogprobs_)
    return failedPrecondition("read_logprobs: no call has produced log-probabilities yet");
  if (count > logprobs_.size())
    return outOfRange("read_logprobs: asked for " + std::to_string(count) + " values, the plan has " +
                      std::to_string(logprobs_.size()));
  std::memcpy(out, logprobs_.data(), count * sizeof(float));
  return okStatus();
}

Status Session::reset() {
  if (!failed_.ok())
    return failed_;
  KILN_RETURN_IF_ERROR(fail(zeroBuffers(/*stateOnly=*/true)));
  position_ = 0;
  firstCall_ = true;
  generator_ = SplitMix64(options_.seed);
  haveLogprobs_ = false;
  return okStatus();
}

Status Session::seek(uint32_t position) {
  if (!failed_.ok())
    return failed_;
  if (position >= plan_.root().max_position())
    return outOfRange("seek: position " + std::to_string(position) +
                      " is at or past the plan's max_position " +
                      std::to_string(plan_.root().max_position()));
  position_ = position;
  haveLogprobs_ = false;
  return okStatus();
}

void Session::stats(kiln_session_stats_t &out) const {
  out = kiln_session_stats_t();
  out.dispatches_per_token = decode_.counts.dispatches;
  out.barriers_per_token = decode_.counts.barriers;
  out.bytes_per_token = plan_.bytesPerCall(plan_.decode());
  out.tokens = tokens_;
  out.calls = calls_;
  out.total_ms = totalMs_;
  out.ms_per_token = tokens_ ? totalMs_ / static_cast<double>(tokens_) : 0.0;
  out.prefill_tokens = prefillTokens_;
  out.prefill_ms = prefillMs_;
  out.decode_tokens = decodeTokens_;
  out.decode_ms = decodeMs_;
  out.gpu_span_ms_per_call = profiledCalls_ ? profileSpanMs_ / static_cast<double>(profiledCalls_)
                                            : (profileWarmedUp_ ? warmupSpanMs_ : 0.0);
  out.decode_submit_ms = decodeSubmitMs_;
  out.decode_calls = decodeCalls_;
  out.decode_gpu_ms_per_call =
      decodeGpuCalls_ ? decodeGpuMs_ / static_cast<double>(decodeGpuCalls_) : 0.0;
}

Status Session::profile(kiln_dispatch_profile_t *out, size_t capacity, size_t &count) const {
  if (!options_.profiling)
    return failedPrecondition("profile: the session was created without enable_profiling");
  count = profileLabels_.size();
  for (size_t i = 0; i < count && i < capacity; ++i) {
    out[i].label = profileLabels_[i].c_str();
    const kp::Program &program =
        options_.profilePrefill && plan_.prefill() ? *plan_.prefill() : plan_.decode();
    const kp::Dispatch *dispatch = program.dispatches()->Get(profileDispatches_[i]);
    out[i].kernel = dispatch->kernel();
    // The warm-up call stands in only while no other has run.
    bool warmupOnly = profiledCalls_ == 0 && profileWarmedUp_;
    out[i].calls = warmupOnly ? 1 : profiledCalls_;
    out[i].total_ms = warmupOnly ? warmupProfileMs_[i] : profileMs_[i];
    out[i].estimated_us = dispatch->estimated_us();
  }
  return okStatus();
}

Status Session::timeKernels(uint32_t repetitions, uint64_t flushBytes, kiln_kernel_timing_t *out,
                            size_t capacity, size_t &count) {
  if (!failed_.ok())
    return failed_;
  if (repetitions < 1 || repetitions > 1000)
    return invalidArgument("time kernels: repetitions " + std::to_string(repetitions) +
                           " is not in [1, 1000]");
  std::vector<KernelTiming> timings;
  KILN_RETURN_IF_ERROR(kiln::rt::timeKernels(device_, plan_, plan_.decode(), recordInputs_,
                                             repetitions, flushBytes, timings));
  const kp::Plan &plan = plan_.root();
  timedLabels_.clear();
  for (const KernelTiming &t : timings) {
    const kp::Dispatch *first = plan_.decode().dispatches()->Get(t.firstDispatch);
    timedLabels_.push_back(first->label() && first->label()->size()
                               ? first->label()->str()
                               : plan.kernels()->Get(t.kernel)->name()->str());
  }
  count = timings.size();
  for (size_t i = 0; i < count && i < capacity; ++i) {
    const KernelTiming &t = timings[i];
    std::vector<double> runs = t.runsMs;
    std::sort(runs.begin(), runs.end());
    out[i].kernel_name = plan.kernels()->Get(t.kernel)->name()->c_str();
    out[i].label = timedLabels_[i].c_str();
    out[i].kernel = t.kernel;
    out[i].dispatches = t.dispatches;
    out[i].bound_bytes = t.boundBytes;
    out[i].min_us = runs.empty() ? 0.0 : 1e3 * runs.front();
    out[i].median_us = runs.empty() ? 0.0 : 1e3 * runs[runs.size() / 2];
    out[i].estimated_us = t.estimatedUs;
  }
  return okStatus();
}

} // namespace kiln::rt
