//===- GatedDeltaRule.cpp - GDN state step and gated RMSNorm --------------===//

#include "kiln/Reference/GatedDeltaRule.h"

#include "kiln/Reference/Activations.h"

#include <algorithm>
#include <cmath>

namespace kiln::ref {

// The seed's floor inside the q/k norms; fixed, not the config's eps.
static constexpr float kDeltaNormFloor = 1e-6f;

std::vector<float> deltaRuleQuery(const float *q, size_t dk) {
  const float inverse =
      1.0f / (std::sqrt(dot(q, q, dk) + kDeltaNormFloor) *
              std::sqrt(static_cast<float>(dk)));
  std::vector<float> out(dk);
  for (size_t i = 0; i < dk; ++i)
    out[i] = q[i] * inverse;
  return out;
}

std::vector<float> deltaRuleKey(const float *k, size_t dk) {
  const float inverse = 1.0f / std::sqrt(dot(k, k, dk) + kDeltaNormFloor);
  std::vector<float> out(dk);
  for (size_t i = 0; i < dk; ++i)
    out[i] = k[i] * inverse;
  return out;
}

float deltaRuleDecay(float aLog, float a, float dtBias) {
  return std::exp(-std::exp(aLog) * softplus(a + dtBias));
}

DeltaRuleState::DeltaRuleState(size_t keyDim, size_t valueDim)
    : keyDim_(keyDim), valueDim_(valueDim), state_(keyDim * valueDim, 0.0f) {}

std::vector<float> DeltaRuleState::step(const float *qHat, const float *kHat,
                                        const float *v, float decay,
                                        float beta) {
  // kv = Sᵀk̂ on the old state: what the memory already predicts for k̂.
  std::vector<float> predicted(valueDim_, 0.0f);
  for (size_t i = 0; i < keyDim_; ++i)
    for (size_t j = 0; j < valueDim_; ++j)
      predicted[j] += at(i, j) * kHat[i];
  std::vector<float> delta(valueDim_);
  for (size_t j = 0; j < valueDim_; ++j)
    delta[j] = beta * (v[j] - decay * predicted[j]);
  std::vector<float> out(valueDim_, 0.0f);
  for (size_t i = 0; i < keyDim_; ++i)
    for (size_t j = 0; j < valueDim_; ++j) {
      float &s = at(i, j);
      s = decay * s + kHat[i] * delta[j];
      out[j] += s * qHat[i];
    }
  return out;
}

void DeltaRuleState::reset() { std::fill(state_.begin(), state_.end(), 0.0f); }

std::vector<float> gatedRmsNorm(const float *o, const float *weight,
                                const float *z, size_t n, float eps) {
  std::vector<float> out = rmsNorm(o, n, eps);
  for (size_t i = 0; i < n; ++i)
    out[i] *= weight[i] * silu(z[i]);
  return out;
}

} // namespace kiln::ref
