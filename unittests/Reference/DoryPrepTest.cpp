//===- DoryPrepTest.cpp - Dory's prep and scaled MLP ----------------------===//

#include "kiln/Reference/Activations.h"
#include "kiln/Reference/DoryPrep.h"
#include "kiln/Reference/Rotary.h"
#include "kiln/Reference/ScaledMlp.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kiln::ref;

TEST(DoryPrep, KeyIsTheUnitRotatedKey) {
  const float k[4] = {3, 0, 4, 0};
  const std::vector<float> out = doryPrepKey(k, 4, 0, 10000.0, 0.0f);
  EXPECT_FLOAT_EQ(out[0], 0.6f);
  EXPECT_FLOAT_EQ(out[2], 0.8f);
  // At position 1 the pair (0, 2) turns by 1 rad (full rotary: rd = hd).
  const float e[4] = {1, 0, 0, 0};
  const std::vector<float> turned = doryPrepKey(e, 4, 1, 10000.0, 0.0f);
  EXPECT_NEAR(turned[0], std::cos(1.0f), 1e-6);
  EXPECT_NEAR(turned[2], std::sin(1.0f), 1e-6);
  EXPECT_NEAR(std::sqrt(dot(turned.data(), turned.data(), 4)), 1.0f, 1e-6);
}

TEST(DoryPrep, QueryIsUnitTimesScale) {
  const float q[4] = {0, 5, 0, 0};
  const float s[4] = {2, 3, 4, 5};
  const std::vector<float> out = doryPrepQuery(q, s, 4, 0, 10000.0, 0.0f);
  EXPECT_EQ(out, (std::vector<float>{0, 3, 0, 0}));
}

TEST(DoryPrep, ScaledMlpByHand) {
  ScaledMlpWeights w;
  w.gate = Matrix{1, 2, {1, 0}};
  w.up = Matrix{1, 2, {0, 1}};
  w.down = Matrix{2, 1, {1, -2}};
  w.scaleGate = {2};
  w.scaleUp = {0.5f};
  // x = (1, 4): g = 1·2 = 2, u = 4·0.5 = 2, a = silu(2)·2.
  const std::vector<float> y = scaledMlp(w, {1, 4});
  EXPECT_FLOAT_EQ(y[0], silu(2.0f) * 2.0f);
  EXPECT_FLOAT_EQ(y[1], -2.0f * silu(2.0f) * 2.0f);
}
