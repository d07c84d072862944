// kiln.Session: one decoding stream (kiln_session_t) plus what Python callers expect to be
// remembered: the last sampled token (step() feeds it by default) and its log-prob, and the
// sampling settings (generate() may change them for one call). Calls release the GIL, so
// the C API's one-call-at-a-time rule is enforced here: a call while another thread's is
// running raises FAILED_PRECONDITION instead of racing.
#ifndef KILN_PYTHON_SESSION_H
#define KILN_PYTHON_SESSION_H

#include "plan.h"

#include "kiln/runtime.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::python {

struct SessionOptions {
  std::string weights;
  pybind11::object device;
  uint64_t seed = 0;
  float temperature = 0, topP = 1;
  float headGate = -INFINITY, headTopP = 1;
  bool checkWeights = true, profiling = false;
  /// "auto", "on" or "off": kiln_session_options_t.robust_kernels.
  std::string robustKernels = "auto";
  /// None, or a callable(done_bytes, total_bytes) for the weight upload.
  pybind11::object progress;
};

class Session {
public:
  Session(std::shared_ptr<Plan> plan, const SessionOptions &options);
  ~Session() { kiln_session_release(session_); }
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Feeds `tokens` and returns the sampled next token.
  int32_t prefill(const std::vector<int32_t> &tokens);
  /// Feeds `token` (default: the last sampled one) and returns the next.
  int32_t step(std::optional<int32_t> token);
  /// `count` new tokens: after prefilling `prompt` (its sampled token is the first), else
  /// continuing from the last sampled token. With return_logprobs, (tokens, log-probs).
  pybind11::object generate(size_t count, const std::optional<std::vector<int32_t>> &prompt,
                            std::optional<float> temperature, std::optional<float> topP,
                            bool returnLogprobs, std::optional<int32_t> stopToken);
  /// The last call's log-probabilities over the vocabulary (float32).
  pybind11::array_t<float> logprobs();
  void setSampling(float temperature, float topP);
  void reset();
  /// kiln_session_seek: the next token takes `position` (a benchmark start).
  void seek(uint32_t position);
  uint32_t position() const;
  pybind11::dict stats() const;
  /// kiln_session_time_kernels: one dict a distinct kernel of "decode".
  pybind11::list timeKernels(uint32_t repetitions, uint64_t flushMb);
  std::optional<int32_t> lastToken() const { return lastToken_; }
  std::optional<float> lastLogprob() const { return lastLogprob_; }
  float temperature() const { return temperature_; }
  float topP() const { return topP_; }
  const std::shared_ptr<Plan> &plan() const { return plan_; }
  /// Frees the device resources now; later calls raise FAILED_PRECONDITION.
  void close();

private:
  class InUse;
  kiln_session_t *handle() const;
  void applySampling(float temperature, float topP);
  void remember(const kiln_step_result_t &result);

  std::shared_ptr<Plan> plan_;
  kiln_session_t *session_ = nullptr;
  uint32_t vocab_ = 0;
  float temperature_, topP_;
  std::optional<int32_t> lastToken_;
  std::optional<float> lastLogprob_;
  mutable std::atomic<bool> busy_{false};
};

void bindSession(pybind11::module_ &module);

} // namespace kiln::python

#endif // KILN_PYTHON_SESSION_H
