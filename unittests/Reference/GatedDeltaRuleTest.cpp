//===- GatedDeltaRuleTest.cpp - The gated delta rule by hand --------------===//

#include "kiln/Reference/Activations.h"
#include "kiln/Reference/GatedDeltaRule.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kiln::ref;

TEST(GatedDeltaRule, TwoByTwoStepByHand) {
  // S = [[1, 2], [3, 4]] (rows: key dims), k̂ = (1, 0), q̂ = (0, 1),
  // v = (5, 6), g = 0.5, β = 0.5.
  DeltaRuleState state(2, 2);
  state.at(0, 0) = 1; state.at(0, 1) = 2;
  state.at(1, 0) = 3; state.at(1, 1) = 4;
  const float k[2] = {1, 0}, q[2] = {0, 1}, v[2] = {5, 6};
  // Sᵀk̂ = (1, 2); δ = β(v − g·Sᵀk̂) = 0.5·((5, 6) − (0.5, 1)) = (2.25, 2.5).
  // S' = g·S + k̂ ⊗ δ = [[0.5 + 2.25, 1 + 2.5], [1.5, 2]].
  // o = S'ᵀq̂ = row 1 = (1.5, 2).
  const std::vector<float> o = state.step(q, k, v, 0.5f, 0.5f);
  EXPECT_FLOAT_EQ(state.at(0, 0), 2.75f);
  EXPECT_FLOAT_EQ(state.at(0, 1), 3.5f);
  EXPECT_FLOAT_EQ(state.at(1, 0), 1.5f);
  EXPECT_FLOAT_EQ(state.at(1, 1), 2.0f);
  EXPECT_FLOAT_EQ(o[0], 1.5f);
  EXPECT_FLOAT_EQ(o[1], 2.0f);
}

TEST(GatedDeltaRule, FullWriteStoresTheValue) {
  // β = 1, g = 1 on an empty state: S = k̂ ⊗ v, so reading with k̂ gives v.
  DeltaRuleState state(2, 3);
  const float k[2] = {0.6f, 0.8f}, v[3] = {1, -2, 3};
  const std::vector<float> o = state.step(k, k, v, 1.0f, 1.0f);
  for (int j = 0; j < 3; ++j)
    EXPECT_NEAR(o[j], v[j], 1e-6);
  // A second write of the same key with a new value replaces it exactly.
  const float w[3] = {4, 5, 6};
  const std::vector<float> o2 = state.step(k, k, w, 1.0f, 1.0f);
  for (int j = 0; j < 3; ++j)
    EXPECT_NEAR(o2[j], w[j], 1e-5);
}

TEST(GatedDeltaRule, NormalisedQueryAndKey) {
  const float x[4] = {3, 4, 0, 0};
  const std::vector<float> k = deltaRuleKey(x, 4);
  EXPECT_NEAR(k[0], 3.0f / std::sqrt(25.0f + 1e-6f), 1e-7);
  const std::vector<float> q = deltaRuleQuery(x, 4);
  // An extra 1/√dk = 1/2.
  EXPECT_NEAR(q[1], 4.0f / std::sqrt(25.0f + 1e-6f) / 2.0f, 1e-7);
}

TEST(GatedDeltaRule, DecayFormula) {
  // exp(−exp(0)·softplus(0)) = exp(−ln 2) = 1/2.
  EXPECT_NEAR(deltaRuleDecay(0.0f, 0.3f, -0.3f), 0.5f, 1e-6);
  EXPECT_NEAR(deltaRuleDecay(std::log(2.0f), 25.0f, 0.0f), std::exp(-50.0f),
              1e-25);
}

TEST(GatedDeltaRule, GatedRmsNorm) {
  const float o[2] = {3, 4}, w[2] = {1, 2}, z[2] = {0, 1};
  const std::vector<float> out = gatedRmsNorm(o, w, z, 2, 0.0f);
  const float inv = 1.0f / std::sqrt(12.5f);
  EXPECT_FLOAT_EQ(out[0], 0.0f); // silu(0) = 0
  EXPECT_FLOAT_EQ(out[1], 4.0f * inv * 2.0f * silu(1.0f));
}
