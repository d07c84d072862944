//===- Sampler.cpp - Seeded token sampling --------------------------------===//

#include "kiln/Reference/Sampler.h"

#include "kiln/Reference/Activations.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kiln::ref {

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double SplitMix64::uniform() {
  return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
}

int sampleToken(const std::vector<float> &logProbs,
                const SamplingOptions &options, SplitMix64 &rng) {
  const size_t best = argMax(logProbs);
  if (options.greedy || std::isinf(logProbs[best]))
    return static_cast<int>(best);
  std::vector<double> weights(logProbs.size());
  for (size_t i = 0; i < logProbs.size(); ++i)
    weights[i] = std::exp((static_cast<double>(logProbs[i]) -
                           static_cast<double>(logProbs[best])) /
                          options.temperature);
  std::vector<size_t> order(logProbs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return weights[a] > weights[b]; });
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  double kept = 0.0;
  size_t keep = 0;
  while (keep < order.size()) {
    kept += weights[order[keep++]];
    if (kept >= options.topP * total)
      break;
  }
  const double target = rng.uniform() * kept;
  double running = 0.0;
  for (size_t i = 0; i < keep; ++i) {
    running += weights[order[i]];
    if (target < running)
      return static_cast<int>(order[i]);
  }
  return static_cast<int>(order[keep - 1]);
}

} // namespace kiln::ref
