//===- HierarchicalHead.h - Embryo's two-level output head -----*- C++ -*-===//
//
// Cluster log-probabilities lc = log_softmax(C x); an open cluster c gives its
// tokens lc[c] + r − logsumexp_c(r) with r = R x over its CS rows. A cluster
// whose lc[c] is below the gate reads none of its rows and its tokens get −∞
// (the seed writes −1e30; the reference says "impossible" exactly). A gate of
// −∞ opens every cluster, and then the probabilities sum to 1.
//
// Gate from top_p (docs/semantics.md): sort clusters by lc, descending (lower
// id first on ties); take the shortest prefix whose probability mass reaches
// top_p; the gate is the lc of the last cluster taken. Clusters tied with it
// stay open. top_p ≥ 1 (or not finite) gives −∞.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_HIERARCHICALHEAD_H
#define KILN_REFERENCE_HIERARCHICALHEAD_H

#include "kiln/Reference/Matrix.h"

#include <cstddef>
#include <vector>

namespace kiln::ref {

struct HierarchicalHeadWeights {
  size_t clusterCount = 0; // NC
  size_t clusterSize = 0;  // CS
  Matrix clusters;         // [NC, H]
  Matrix rows;             // [NC·CS, H]
};

/// lc = log_softmax(C x).
std::vector<float> clusterLogProbs(const HierarchicalHeadWeights &w,
                                   const std::vector<float> &x);

/// The gate for top_p over cluster log-probabilities (rule above).
float headGateFromTopP(const std::vector<float> &clusterLogProbs, float topP);

/// Token log-probabilities (V); dropped clusters' tokens are −∞.
std::vector<float> hierarchicalHeadLogProbs(const HierarchicalHeadWeights &w,
                                            const std::vector<float> &x,
                                            const std::vector<float> &lc,
                                            float gate);

} // namespace kiln::ref

#endif // KILN_REFERENCE_HIERARCHICALHEAD_H
