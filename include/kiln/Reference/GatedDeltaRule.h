//===- GatedDeltaRule.h - GDN state step and gated RMSNorm -----*- C++ -*-===//
//
// One value head of the gated delta rule (MODELS.md, GDN mixer):
//   S ← g·S + k̂ ⊗ β(v − g·Sᵀk̂),  o = Sᵀq̂
// with S a dk×dv matrix that persists across tokens. The helpers give q̂, k̂,
// the decay g and the gated norm exactly as the seed's w_gdn_step computes
// them (norm floor 1e-6 inside the square roots, q̂ further divided by √dk).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_GATEDDELTARULE_H
#define KILN_REFERENCE_GATEDDELTARULE_H

#include <cstddef>
#include <vector>

namespace kiln::ref {

/// q̂ = q / (sqrt(|q|² + 1e-6) · sqrt(dk)).
std::vector<float> deltaRuleQuery(const float *q, size_t dk);
/// k̂ = k / sqrt(|k|² + 1e-6).
std::vector<float> deltaRuleKey(const float *k, size_t dk);
/// g = exp(−exp(aLog) · softplus(a + dtBias)).
float deltaRuleDecay(float aLog, float a, float dtBias);

/// The dk×dv state of one value head.
class DeltaRuleState {
public:
  DeltaRuleState() = default;
  DeltaRuleState(size_t keyDim, size_t valueDim);

  /// Applies one token with already normalised q̂, k̂ (dk each), value v (dv),
  /// decay g and write strength β; returns o = Sᵀq̂ (dv) of the new state.
  std::vector<float> step(const float *qHat, const float *kHat, const float *v,
                          float decay, float beta);

  void reset();
  /// S[i][j], i < dk (key row), j < dv (value column).
  float at(size_t i, size_t j) const { return state_[i * valueDim_ + j]; }
  float &at(size_t i, size_t j) { return state_[i * valueDim_ + j]; }

private:
  size_t keyDim_ = 0;
  size_t valueDim_ = 0;
  std::vector<float> state_; // [dk][dv]
};

/// o ← rms(o) ⊙ weight ⊙ silu(z): the GDN output norm, per head (dv values).
std::vector<float> gatedRmsNorm(const float *o, const float *weight,
                                const float *z, size_t n, float eps);

} // namespace kiln::ref

#endif // KILN_REFERENCE_GATEDDELTARULE_H
