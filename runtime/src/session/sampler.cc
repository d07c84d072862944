#include "session/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace kiln::rt {

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace {

// The largest finite value and its (lowest) index; errors on NaN / nothing finite.
Status findMaximum(const std::vector<float> &values, size_t &best) {
  best = values.size();
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i]))
      return internalError("readback value [" + std::to_string(i) + "] is NaN");
    if (values[i] == -INFINITY)
      continue;
    if (values[i] == INFINITY)
      return internalError("readback value [" + std::to_string(i) + "] is +inf");
    if (best == values.size() || values[i] > values[best])
      best = i;
  }
  if (best == values.size())
    return failedPrecondition("every readback value is -inf: no token can be sampled");
  return okStatus();
}

} // namespace

Status logSoftmaxInPlace(std::vector<float> &values) {
  size_t best;
  KILN_RETURN_IF_ERROR(findMaximum(values, best));
  const double maximum = values[best];
  double sum = 0;
  for (float value : values)
    if (value != -INFINITY)
      sum += std::exp(static_cast<double>(value) - maximum);
  const double logSum = maximum + std::log(sum);
  for (float &value : values)
    if (value != -INFINITY)
      value = static_cast<float>(static_cast<double>(value) - logSum);
  return okStatus();
}

Status sampleToken(const std::vector<float> &logprobs, const SamplingOptions &options,
                   SplitMix64 &generator, int32_t &token, float &logprob) {
  size_t best;
  KILN_RETURN_IF_ERROR(findMaximum(logprobs, best));
  if (!(options.temperature > 0)) {
    token = static_cast<int32_t>(best);
    logprob = logprobs[best];
    return okStatus();
  }
  // Tempered weights relative to the maximum, ordered by weight then by id, so ties
  // and the nucleus cut are deterministic.
  const double maximum = logprobs[best];
  std::vector<std::pair<double, uint32_t>> weights;
  weights.reserve(logprobs.size());
  double total = 0;
  for (size_t i = 0; i < logprobs.size(); ++i) {
    if (logprobs[i] == -INFINITY)
      continue;
    double weight = std::exp((static_cast<double>(logprobs[i]) - maximum) / options.temperature);
    weights.emplace_back(weight, static_cast<uint32_t>(i));
    total += weight;
  }
  std::sort(weights.begin(), weights.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  const double topP = options.topP > 0 && options.topP < 1 ? options.topP : 1.0;
  // The smallest prefix whose mass reaches top_p (at least one token).
  size_t kept = 0;
  double keptMass = 0;
  while (kept < weights.size()) {
    keptMass += weights[kept].first;
    ++kept;
    if (keptMass >= topP * total)
      break;
  }
  double target = generator.nextUnit() * keptMass;
  size_t chosen = kept - 1;
  double running = 0;
  for (size_t i = 0; i < kept; ++i) {
    running += weights[i].first;
    if (target < running) {
      chosen = i;
      break;
    }
  }
  token = static_cast<int32_t>(weights[chosen].second);
  logprob = logprobs[weights[chosen].second];
  return okStatus();
}

} // namespace kiln::rt
