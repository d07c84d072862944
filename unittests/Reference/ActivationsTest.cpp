//===- ActivationsTest.cpp - rms, unit, silu, softplus, log_softmax -------===//

#include "kiln/Reference/Activations.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace kiln::ref;

TEST(Activations, RmsNormDividesByRootMeanSquare) {
  // mean(3², 4²) = 12.5; eps 0.5 makes the divisor sqrt(13) exactly.
  const std::vector<float> out = rmsNorm({3.0f, 4.0f}, 0.5f);
  EXPECT_FLOAT_EQ(out[0], 3.0f / std::sqrt(13.0f));
  EXPECT_FLOAT_EQ(out[1], 4.0f / std::sqrt(13.0f));
}

TEST(Activations, UnitNormDividesByLength) {
  const std::vector<float> out = unitNorm({3.0f, 4.0f}, 0.0f);
  EXPECT_FLOAT_EQ(out[0], 0.6f);
  EXPECT_FLOAT_EQ(out[1], 0.8f);
  // eps enters under the root: |x|² + eps = 25 + 11 = 36.
  const std::vector<float> floored = unitNorm({3.0f, 4.0f}, 11.0f);
  EXPECT_FLOAT_EQ(floored[0], 0.5f);
}

TEST(Activations, SiluSigmoidSoftplus) {
  EXPECT_FLOAT_EQ(sigmoid(0.0f), 0.5f);
  EXPECT_FLOAT_EQ(silu(2.0f), 2.0f / (1.0f + std::exp(-2.0f)));
  EXPECT_FLOAT_EQ(softplus(0.0f), std::log(2.0f));
  // Past 20 softplus is the identity (the seed's switch).
  EXPECT_EQ(softplus(20.5f), 20.5f);
  EXPECT_NEAR(softplus(-5.0f), std::log1p(std::exp(-5.0f)), 1e-7);
}

TEST(Activations, LogSoftmaxSumsToOneAndKeepsDifferences) {
  const std::vector<float> out = logSoftmax({1.0f, 2.0f, 3.0f});
  float sum = 0.0f;
  for (float v : out)
    sum += std::exp(v);
  EXPECT_NEAR(sum, 1.0f, 1e-6);
  EXPECT_NEAR(out[2] - out[0], 2.0f, 1e-6);
  EXPECT_NEAR(out[0], 1.0f - std::log(std::exp(1.0f) + std::exp(2.0f) +
                                      std::exp(3.0f)), 1e-6);
}

TEST(Activations, LogSumExpOfNothingIsMinusInfinity) {
  const float none[2] = {-std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity()};
  EXPECT_TRUE(std::isinf(logSumExp(none, 2)) && logSumExp(none, 2) < 0);
}

TEST(Activations, ArgMaxTieGoesToLowerIndex) {
  EXPECT_EQ(argMax({1.0f, 5.0f, 5.0f, 2.0f}), 1u);
}
