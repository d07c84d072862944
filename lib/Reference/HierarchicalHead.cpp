//===- HierarchicalHead.cpp - Embryo's two-level output head --------------===//

#include "kiln/Reference/HierarchicalHead.h"

#include "kiln/Reference/Activations.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace kiln::ref {

std::vector<float> clusterLogProbs(const HierarchicalHeadWeights &w,
                                   const std::vector<float> &x) {
  return logSoftmax(matVec(w.clusters, x));
}

float headGateFromTopP(const std::vector<float> &lc, float topP) {
  const float none = -std::numeric_limits<float>::infinity();
  if (!(topP < 1.0f) || lc.empty())
    return none;
  std::vector<size_t> order(lc.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return lc[a] > lc[b]; });
  // Mass accumulated in double so that the stop does not depend on f32
  // rounding of a long sum.
  double mass = 0.0;
  for (size_t c : order) {
    mass += std::exp(static_cast<double>(lc[c]));
    if (mass >= static_cast<double>(topP))
      return lc[c];
  }
  return none; // rounding kept the total below top_p: open everything
}

std::vector<float> hierarchicalHeadLogProbs(const HierarchicalHeadWeights &w,
                                            const std::vector<float> &x,
                                            const std::vector<float> &lc,
                                            float gate) {
  const size_t cs = w.clusterSize;
  std::vector<float> out(w.clusterCount * cs,
                         -std::numeric_limits<float>::infinity());
  std::vector<float> r(cs);
  for (size_t c = 0; c < w.clusterCount; ++c) {
    if (lc[c] < gate)
      continue;
    for (size_t j = 0; j < cs; ++j)
      r[j] = dot(w.rows.row(c * cs + j), x.data(), w.rows.cols);
    const float normaliser = logSumExp(r.data(), cs);
    for (size_t j = 0; j < cs; ++j)
      out[c * cs + j] = lc[c] + r[j] - normaliser;
  }
  return out;
}

} // namespace kiln::ref
