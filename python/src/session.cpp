#include "session.h"

#include "status_error.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>

namespace py = pybind11;

namespace kiln::python {
namespace {

// The upload's progress into a Python callable. The runtime calls it with the GIL
// released; the first exception it raises is kept and re-raised after the upload (the C
// API cannot stop the upload).
struct ProgressCall {
  py::object callable;
  std::optional<py::error_already_set> error;
  static void call(void *self, uint64_t done, uint64_t total) {
    auto &progress = *static_cast<ProgressCall *>(self);
    py::gil_scoped_acquire locked;
    if (progress.error)
      return;
    try {
      progress.callable(done, total);
    } catch (py::error_already_set &raised) {
      progress.error = std::move(raised);
    }
  }
};

} // namespace

// Marks the session busy for one call (see session.h).
class Session::InUse {
public:
  explicit InUse(const Session &session) : busy_(session.busy_) {
    if (busy_.exchange(true))
      throw StatusError(KILN_STATUS_FAILED_PRECONDITION,
                        "session: in use by another thread (one call at a time)");
  }
  ~InUse() { busy_.store(false); }
  InUse(const InUse &) = delete;
  InUse &operator=(const InUse &) = delete;

private:
  std::atomic<bool> &busy_;
};

Session::Session(std::shared_ptr<Plan> plan, const SessionOptions &options)
    : plan_(std::move(plan)), temperature_(options.temperature), topP_(options.topP) {
  if (!plan_)
    throw StatusError(KILN_STATUS_INVALID_ARGUMENT, "Session: plan is None");
  kiln_plan_t *loaded = options.device.is_none() ? plan_->primary()
                                                 : plan_->on(DeviceChoice::from(options.device));
  kiln_plan_info_t info{};
  check(kiln_plan_info(loaded, &info));
  vocab_ = info.vocab_size;
  kiln_session_options_t c;
  kiln_session_options_init(&c);
  c.weights_path = options.weights.c_str();
  c.temperature = options.temperature;
  c.top_p = options.topP;
  c.seed = options.seed;
  c.head_gate = options.headGate;
  c.head_top_p = options.headTopP;
  c.enable_profiling = options.profiling ? 1 : 0;
  c.skip_weight_check = options.checkWeights ? 0 : 1;
  if (options.robustKernels == "auto")
    c.robust_kernels = KILN_ROBUST_AUTO;
  else if (options.robustKernels == "on")
    c.robust_kernels = KILN_ROBUST_ON;
  else if (options.robustKernels == "off")
    c.robust_kernels = KILN_ROBUST_OFF;
  else
    throw StatusError(KILN_STATUS_INVALID_ARGUMENT,
                      "Session: robust_kernels must be 'auto', 'on' or 'off', got '" +
                          options.robustKernels + "'");
  ProgressCall progress{options.progress, std::nullopt};
  if (!options.progress.is_none()) {
    c.upload_progress = &ProgressCall::call;
    c.upload_progress_user_data = &progress;
  }
  kiln_status_t status;
  {
    py::gil_scoped_release unlocked; // the weight upload may take seconds
    status = kiln_session_create(loaded, &c, &session_);
  }
  check(status);
  if (progress.error) {
    close();
    throw std::move(*progress.error);
  }
}

void Session::close() {
  InUse use(*this);
  kiln_session_release(session_);
  session_ = nullptr;
}

kiln_session_t *Session::handle() const {
  if (!session_)
    throw StatusError(KILN_STATUS_FAILED_PRECONDITION, "session: closed");
  return session_;
}

void Session::remember(const kiln_step_result_t &result) {
  lastToken_ = result.token;
  lastLogprob_ = result.logprob;
}

int32_t Session::prefill(const std::vector<int32_t> &tokens) {
  InUse use(*this);
  kiln_session_t *session = handle();
  kiln_step_result_t result{};
  {
    py::gil_scoped_release unlocked;
    check(kiln_session_prefill(session, tokens.data(), tokens.size(), &result));
  }
  remember(result);
  return result.token;
}

int32_t Session::step(std::optional<int32_t> token) {
  InUse use(*this);
  kiln_session_t *session = handle();
  if (!token && !lastToken_)
    throw StatusError(KILN_STATUS_FAILED_PRECONDITION,
                      "step: no token to feed: prefill a prompt first, or pass a token");
  kiln_step_result_t result{};
  {
    py::gil_scoped_release unlocked;
    check(kiln_session_step(session, token ? *token : *lastToken_, &result));
  }
  remember(result);
  return result.token;
}

py::object Session::generate(size_t count, const std::optional<std::vector<int32_t>> &prompt,
                             std::optional<float> temperature, std::optional<float> topP,
                             bool returnLogprobs, std::optional<int32_t> stopToken) {
  InUse use(*this);
  kiln_session_t *session = handle();
  if (!prompt && count && !lastToken_)
    throw StatusError(KILN_STATUS_FAILED_PRECONDITION,
                      "generate: nothing to continue from: pass prompt=, or prefill first");
  // A per-call sampling change is undone afterwards, on failure too.
  const float savedTemperature = temperature_, savedTopP = topP_;
  const bool changed = temperature || topP;
  if (changed)
    applySampling(temperature.value_or(temperature_), topP.value_or(topP_));
  std::vector<int32_t> tokens;
  std::vector<float> logprobs;
  kiln_status_t failure = nullptr;
  {
    py::gil_scoped_release unlocked;
    kiln_step_result_t result{};
    int32_t next = lastToken_ ? *lastToken_ : 0;
    if (count && prompt) {
      failure = kiln_session_prefill(session, prompt->data(), prompt->size(), &result);
      if (!failure) {
        tokens.push_back(result.token);
        logprobs.push_back(result.logprob);
        next = result.token;
      }
    }
    const bool stopped = stopToken && !tokens.empty() && tokens.back() == *stopToken;
    // The rest in one call: greedy runs many tokens a submission on the device
    // (kiln_session_generate), as kiln-run does.
    const size_t rest = count - tokens.size();
    if (!failure && rest && !stopped) {
      std::vector<kiln_step_result_t> picks(rest);
      size_t produced = rest;
      failure = stopToken ? kiln_session_generate_until(session, next, rest, *stopToken,
                                                        picks.data(), &produced)
                          : kiln_session_generate(session, next, rest, picks.data());
      if (!failure)
        for (size_t i = 0; i < produced; ++i) {
          tokens.push_back(picks[i].token);
          logprobs.push_back(picks[i].logprob);
        }
    }
  }
  if (!tokens.empty()) {
    lastToken_ = tokens.back();
    lastLogprob_ = logprobs.back();
  }
  if (changed)
    applySampling(savedTemperature, savedTopP);
  check(failure);
  py::list ids = py::cast(tokens);
  if (!returnLogprobs)
    return std::move(ids);
  py::array_t<float> values(static_cast<py::ssize_t>(logprobs.size()));
  std::copy(logprobs.begin(), logprobs.end(), values.mutable_data());
  return py::make_tuple(ids, values);
}

py::array_t<float> Session::logprobs() {
  InUse use(*this);
  kiln_session_t *session = handle();
  py::array_t<float> values(static_cast<py::ssize_t>(vocab_));
  check(kiln_session_read_logprobs(session, values.mutable_data(), vocab_));
  return values;
}

void Session::setSampling(float temperature, float topP) {
  InUse use(*this);
  applySampling(temperature, topP);
}

void Session::applySampling(float temperature, float topP) {
  check(kiln_session_set_sampling(handle(), temperature, topP));
  temperature_ = temperature;
  topP_ = topP;
}

void Session::reset() {
  InUse use(*this);
  check(kiln_session_reset(handle()));
  lastToken_.reset();
  lastLogprob_.reset();
}

void Session::seek(uint32_t position) {
  InUse use(*this);
  check(kiln_session_seek(handle(), position));
  lastToken_.reset();
  lastLogprob_.reset();
}

uint32_t Session::position() const {
  InUse use(*this);
  return kiln_session_position(handle());
}

py::dict Session::stats() const {
  InUse use(*this);
  kiln_session_stats_t s{};
  check(kiln_session_stats(handle(), &s));
  py::dict out;
  out["dispatches_per_token"] = s.dispatches_per_token;
  out["barriers_per_token"] = s.barriers_per_token;
  out["bytes_per_token"] = s.bytes_per_token;
  out["tokens"] = s.tokens;
  out["calls"] = s.calls;
  out["total_ms"] = s.total_ms;
  out["ms_per_token"] = s.ms_per_token;
  out["prefill_tokens"] = s.prefill_tokens;
  out["prefill_ms"] = s.prefill_ms;
  out["decode_tokens"] = s.decode_tokens;
  out["decode_ms"] = s.decode_ms;
  return out;
}

py::list Session::timeKernels(uint32_t repetitions, uint64_t flushMb) {
  InUse use(*this);
  kiln_session_t *session = handle();
  std::vector<kiln_kernel_timing_t> timings;
  {
    py::gil_scoped_release unlocked; // R runs of every kernel behind cache flushes
    // One call (each times every kernel anew): no more distinct kernels than
    // dispatches a token.
    kiln_session_stats_t stats{};
    check(kiln_session_stats(session, &stats));
    timings.resize(stats.dispatches_per_token);
    size_t count = 0;
    check(kiln_session_time_kernels(session, repetitions, flushMb << 20, timings.data(),
                                    timings.size(), &count));
    timings.resize(std::min(count, timings.size()));
  }
  lastToken_.reset();
  lastLogprob_.reset();
  py::list out;
  for (const kiln_kernel_timing_t &t : timings) {
    py::dict d;
    d["kernel"] = t.kernel_name;
    d["label"] = t.label;
    d["dispatches"] = t.dispatches;
    d["bound_bytes"] = t.bound_bytes;
    d["min_us"] = t.min_us;
    d["median_us"] = t.median_us;
    d["estimated_us"] = t.estimated_us;
    out.append(std::move(d));
  }
  return out;
}

void bindSession(py::module_ &module) {
  py::class_<Session>(module, "Session",
                      "A decoding stream of a plan bound to a weights file on a device.")
      .def(py::init([](std::shared_ptr<Plan> plan, std::string weights, py::object device,
                       uint64_t seed, float temperature, float topP, float headGate,
                       bool checkWeights, bool profiling, py::object progress,
                       std::string robustKernels, float headTopP) {
             SessionOptions options;
             options.weights = std::move(weights);
             options.device = std::move(device);
             options.seed = seed;
             options.temperature = temperature;
             options.topP = topP;
             options.headGate = headGate;
             options.headTopP = headTopP;
             options.checkWeights = checkWeights;
             options.profiling = profiling;
             options.progress = std::move(progress);
             options.robustKernels = std::move(robustKernels);
             return std::make_unique<Session>(std::move(plan), options);
           }),
           py::arg("plan"), py::kw_only(), py::arg("weights"), py::arg("device") = py::none(),
           py::arg("seed") = 0, py::arg("temperature") = 0.0f, py::arg("top_p") = 1.0f,
           py::arg("head_gate") = -INFINITY, py::arg("check_weights") = true,
           py::arg("profiling") = false, py::arg("progress") = py::none(),
           py::arg("robust_kernels") = "auto", py::arg("head_top_p") = 1.0f,
           "head_top_p: a gated head (Embryo) keeps the smallest set of clusters by mass "
           "reaching it, decided on the device (1 = all). "
           "progress: None, or a callable(done_bytes, total_bytes) called during the "
           "weight upload (last with done == total); an exception it raises is raised here. "
           "robust_kernels: 'auto' (bound every indexed access of the kernels on a CPU "
           "device), 'on' or 'off'.")
      .def("prefill", &Session::prefill, py::arg("tokens"),
           "Feeds the prompt `tokens`; returns the sampled next token.")
      .def("step", &Session::step, py::arg("token") = py::none(),
           "Feeds `token` (default: the last sampled token); returns the next.")
      .def("generate", &Session::generate, py::arg("n"), py::kw_only(),
           py::arg("prompt") = py::none(), py::arg("temperature") = py::none(),
           py::arg("top_p") = py::none(), py::arg("return_logprobs") = false,
           py::arg("stop_token") = py::none(),
           "n new tokens, after prefilling `prompt` (its sampled token is the first), else "
           "continuing from the last sampled token. temperature/top_p apply to this call "
           "only. return_logprobs=True: (tokens, float32 log-probs of each). stop_token: "
           "end after generating it (fewer than n tokens; the session stands there).")
      .def("logprobs", &Session::logprobs,
           "The last call's log-probabilities over the vocabulary (float32 NumPy array).")
      .def("set_sampling", &Session::setSampling, py::arg("temperature"), py::arg("top_p") = 1.0f,
           "Sampling for later calls: temperature 0 = greedy, top_p in (0, 1].")
      .def("reset", &Session::reset, "Back to position 0 (state zeroed, sampler reseeded).")
      .def("seek", &Session::seek, py::arg("position"),
           "A benchmark start: the next token takes `position` over the state held "
           "(zeroed after reset); the tokens that follow are not the model's.")
      .def("stats", &Session::stats, "Counters and timings (kiln_session_stats).")
      .def("time_kernels", &Session::timeKernels, py::arg("repetitions") = 20,
           py::arg("flush_mb") = 256,
           "Each distinct kernel of the decode program alone, caches flushed before each "
           "run (kiln_session_time_kernels): a list of dicts in program order. Run a step "
           "first; reset before decoding again.")
      .def("close", &Session::close, "Frees the device resources now.")
      .def("__enter__", [](Session &s) -> Session & { return s; })
      .def("__exit__", [](Session &s, py::args) { s.close(); })
      .def_property_readonly("position", &Session::position)
      .def_property_readonly("last_token", &Session::lastToken)
      .def_property_readonly("last_logprob", &Session::lastLogprob)
      .def_property_readonly("temperature", &Session::temperature)
      .def_property_readonly("top_p", &Session::topP)
      .def_property_readonly("plan", &Session::plan);
}

} // namespace kiln::python
