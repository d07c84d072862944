//===- ResonanceRouter.cpp - Embryo's resonance expert router -------------===//

#include "kiln/Reference/ResonanceRouter.h"

#include "kiln/Reference/Activations.h"

#include <cmath>
#include <limits>

namespace kiln::ref {

RouteDecision routeResonance(const ResonanceRouterWeights &w,
                             const std::vector<float> &x) {
  const size_t h = w.hidden;
  RouteDecision decision;
  decision.errors.resize(w.experts);
  decision.scores.resize(w.experts);
  std::vector<float> offset(h);
  size_t masked = 0;
  for (size_t e = 0; e < w.experts; ++e) {
    for (size_t i = 0; i < h; ++i)
      offset[i] = x[i] - w.centres[e * h + i];
    float err = dot(offset.data(), offset.data(), h);
    for (size_t c = 0; c < w.rank; ++c) {
      const float projection =
          dot(w.basis.data() + (e * w.rank + c) * h, offset.data(), h);
      err -= projection * projection;
    }
    decision.errors[e] = err;
    float score = w.bias[e] - err;
    if (!w.shells.empty() && err > w.shells[e]) {
      score = -std::numeric_limits<float>::infinity();
      ++masked;
    }
    decision.scores[e] = score;
  }
  // Strictly greater: the lower id keeps an exact tie, and with every score
  // −∞ expert 0 stays the pick.
  size_t best = 0;
  for (size_t e = 1; e < w.experts; ++e)
    if (decision.scores[e] > decision.scores[best])
      best = e;
  decision.expert = best;
  decision.allMasked = masked == w.experts;
  return decision;
}

} // namespace kiln::ref
