//===- HierarchicalHeadTest.cpp - Cluster head, gate and top_p ------------===//

#include "kiln/Reference/HierarchicalHead.h"
#include "kiln/Reference/Sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace kiln::ref;

namespace {
HierarchicalHeadWeights randomHead(size_t nc, size_t cs, size_t h,
                                   uint64_t seed) {
  SplitMix64 rng(seed);
  HierarchicalHeadWeights w;
  w.clusterCount = nc;
  w.clusterSize = cs;
  w.clusters = Matrix{nc, h, std::vector<float>(nc * h)};
  w.rows = Matrix{nc * cs, h, std::vector<float>(nc * cs * h)};
  for (float &x : w.clusters.data)
    x = static_cast<float>(rng.uniform() * 4 - 2);
  for (float &x : w.rows.data)
    x = static_cast<float>(rng.uniform() * 4 - 2);
  return w;
}
const float kMinusInf = -std::numeric_limits<float>::infinity();
} // namespace

TEST(HierarchicalHead, UngatedProbabilitiesSumToOne) {
  const HierarchicalHeadWeights w = randomHead(5, 7, 6, 3);
  const std::vector<float> x = {0.5f, -1, 0.25f, 2, -0.5f, 1};
  const std::vector<float> lc = clusterLogProbs(w, x);
  const std::vector<float> lp = hierarchicalHeadLogProbs(w, x, lc, kMinusInf);
  double sum = 0;
  for (float v : lp)
    sum += std::exp(static_cast<double>(v));
  EXPECT_NEAR(sum, 1.0, 1e-5);
  // Within a cluster, the token mass is the cluster's probability.
  for (size_t c = 0; c < 5; ++c) {
    double mass = 0;
    for (size_t j = 0; j < 7; ++j)
      mass += std::exp(static_cast<double>(lp[c * 7 + j]));
    EXPECT_NEAR(mass, std::exp(lc[c]), 1e-6);
  }
}

TEST(HierarchicalHead, GateDropsExactlyTheClustersBelowIt) {
  const HierarchicalHeadWeights w = randomHead(6, 4, 5, 11);
  const std::vector<float> x = {1, -0.5f, 0.75f, 0.1f, -1};
  const std::vector<float> lc = clusterLogProbs(w, x);
  const std::vector<float> all = hierarchicalHeadLogProbs(w, x, lc, kMinusInf);
  // Gate at the median cluster's own log-prob: it stays open (not below).
  std::vector<float> sorted = lc;
  std::sort(sorted.begin(), sorted.end());
  const float gate = sorted[3];
  const std::vector<float> gated = hierarchicalHeadLogProbs(w, x, lc, gate);
  for (size_t c = 0; c < 6; ++c)
    for (size_t j = 0; j < 4; ++j) {
      const float v = gated[c * 4 + j];
      if (lc[c] < gate)
        EXPECT_TRUE(std::isinf(v) && v < 0) << "cluster " << c;
      else
        EXPECT_EQ(v, all[c * 4 + j]) << "cluster " << c; // unchanged
    }
}

TEST(HierarchicalHead, TopPGateIsTheSmallestClusterOfTheReachingSet) {
  // Cluster probabilities 0.5, 0.3, 0.15, 0.05 (in scrambled order).
  const std::vector<float> lc = {std::log(0.15f), std::log(0.5f),
                                 std::log(0.05f), std::log(0.3f)};
  EXPECT_EQ(headGateFromTopP(lc, 0.45f), lc[1]); // {0.5} reaches 0.45
  EXPECT_EQ(headGateFromTopP(lc, 0.7f), lc[3]);  // {0.5, 0.3}
  EXPECT_EQ(headGateFromTopP(lc, 0.9f), lc[0]);  // {0.5, 0.3, 0.15}
  EXPECT_EQ(headGateFromTopP(lc, 0.1f), lc[1]);
  EXPECT_EQ(headGateFromTopP(lc, 1.0f), kMinusInf);
}
