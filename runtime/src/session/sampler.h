// Host sampling from a row of log-probabilities: greedy (ties go to the lower token
// id) or temperature + top-p with a seeded splitmix64 generator, so a seed gives the
// same tokens on every machine (no std:: distributions, whose output varies).
#ifndef KILN_RUNTIME_SESSION_SAMPLER_H
#define KILN_RUNTIME_SESSION_SAMPLER_H

#include "base/status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::rt {

/// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and identical everywhere.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed = 0) : state_(seed) {}
  uint64_t next();
  /// Uniform in [0, 1) with 53 random bits.
  double nextUnit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  /// As if next() had been called `count` times (the state is a counter).
  void skip(uint64_t count) { state_ += count * 0x9e3779b97f4a7c15ull; }
  /// How many next() calls lead from this generator to `later`.
  uint64_t distance(const SplitMix64 &later) const {
    return (later.state_ - state_) * kInverseGamma;
  }

private:
  /// The inverse of splitmix64's increment modulo 2^64.
  static constexpr uint64_t kInverseGamma = 0xf1de83e19937733dull;
  uint64_t state_;
};

struct SamplingOptions {
  float temperature = 0; // <= 0: greedy
  float topP = 1;        // nucleus mass in (0, 1]
};

/// Turns logits into log-probabilities in place (max-shifted, f64 sums). -inf stays -inf.
Status logSoftmaxInPlace(std::vector<float> &values);

/// Picks a token from `logprobs` (-inf = excluded). The returned log-prob is the
/// model's own, before temperature. NaN values or no finite value are errors.
Status sampleToken(const std::vector<float> &logprobs, const SamplingOptions &options,
                   SplitMix64 &generator, int32_t &token, float &logprob);

} // namespace kiln::rt

#endif // KILN_RUNTIME_SESSION_SAMPLER_H
