//===- ResonanceRouter.h - Embryo's resonance expert router ----*- C++ -*-===//
//
// err_e = |x−μ_e|² − Σ_c (U_e,c·(x−μ_e))², score_e = b_e − err_e. With growth
// shells, an expert whose err_e exceeds shell_e scores −∞ (the sentinel);
// trunk experts carry +∞ and are never masked. The top score wins and the
// lower id wins an exact tie. When every expert is masked the pick is expert
// 0, as in the seed (docs/semantics.md).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_RESONANCEROUTER_H
#define KILN_REFERENCE_RESONANCEROUTER_H

#include <cstddef>
#include <vector>

namespace kiln::ref {

struct ResonanceRouterWeights {
  size_t experts = 0; // E
  size_t rank = 0;    // R
  size_t hidden = 0;  // H
  std::vector<float> centres; // [E][H]
  std::vector<float> basis;   // [E][R][H]
  std::vector<float> bias;    // [E]
  std::vector<float> shells;  // [E], empty when the config has no shells
};

struct RouteDecision {
  size_t expert = 0;
  std::vector<float> errors; // err_e
  std::vector<float> scores; // after masking
  bool allMasked = false;
};

RouteDecision routeResonance(const ResonanceRouterWeights &w,
                             const std::vector<float> &x);

} // namespace kiln::ref

#endif // KILN_REFERENCE_RESONANCEROUTER_H
