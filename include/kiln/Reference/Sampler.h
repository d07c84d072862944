//===- Sampler.h - Seeded token sampling -----------------------*- C++ -*-===//
//
// Greedy (argmax, lower id on ties) or temperature + top-p with a splitmix64
// generator: its own arithmetic, so a seed gives the same tokens on every
// platform (std:: distributions differ between libraries).
//
// Top-p: probabilities ∝ exp((logp − max)/T), sorted descending (lower id
// first on ties); the shortest prefix whose mass reaches top_p · total is
// kept; one uniform draw in [0, kept mass) walks it in that order.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_SAMPLER_H
#define KILN_REFERENCE_SAMPLER_H

#include <cstdint>
#include <vector>

namespace kiln::ref {

class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();
  /// Uniform in [0, 1) from the top 53 bits.
  double uniform();

private:
  uint64_t state_;
};

struct SamplingOptions {
  bool greedy = true;
  double temperature = 1.0; // > 0 when not greedy
  double topP = 1.0;        // in (0, 1]
};

/// Picks a token from log-probabilities (−∞ entries are never picked unless
/// every entry is −∞, then token 0).
int sampleToken(const std::vector<float> &logProbs,
                const SamplingOptions &options, SplitMix64 &rng);

} // namespace kiln::ref

#endif // KILN_REFERENCE_SAMPLER_H
