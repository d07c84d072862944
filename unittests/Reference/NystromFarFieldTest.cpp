//===- NystromFarFieldTest.cpp - Landmarks, push and the far attention ----===//

#include "kiln/Reference/Activations.h"
#include "kiln/Reference/NystromFarField.h"
#include "kiln/Reference/Sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace kiln::ref;

namespace {
std::vector<float> randomVector(SplitMix64 &rng, size_t n, double spread) {
  std::vector<float> v(n);
  for (float &x : v)
    x = static_cast<float>((rng.uniform() * 2.0 - 1.0) * spread);
  return v;
}
} // namespace

TEST(NystromFarField, InverseTimesMatrixIsIdentity) {
  const std::vector<double> a = {4, 1, 2, 1, 3, 0, 2, 0, 5};
  const std::vector<double> inv = invertRegularised(a, 3, 0.0);
  ASSERT_EQ(inv.size(), 9u);
  for (size_t r = 0; r < 3; ++r)
    for (size_t c = 0; c < 3; ++c) {
      double sum = 0;
      for (size_t k = 0; k < 3; ++k)
        sum += a[r * 3 + k] * inv[k * 3 + c];
      EXPECT_NEAR(sum, r == c ? 1.0 : 0.0, 1e-12);
    }
}

TEST(NystromFarField, RidgeKeepsASingularKernelFinite) {
  // Two identical landmarks make K singular; the ridge still gives M.
  const std::vector<float> keys = {0.6f, 0.8f, 0.6f, 0.8f};
  const NystromLandmarks l = sealLandmarks(keys, 2, 2, 2.0f);
  ASSERT_EQ(l.inverse.size(), 4u);
  for (float v : l.inverse)
    EXPECT_TRUE(std::isfinite(v));
  EXPECT_TRUE(invertRegularised({1, 1, 1, 1}, 2, 0.0).empty());
}

TEST(NystromFarField, PushKeepsARunningMaxPerLandmark) {
  SplitMix64 rng(5);
  const size_t m = 3, hd = 4;
  const float scale = 2.0f;
  const NystromLandmarks l = sealLandmarks(randomVector(rng, m * hd, 1.0), m,
                                           hd, scale);
  FarFieldAccumulator far(m, hd);
  std::vector<std::vector<float>> keys, values;
  for (int j = 0; j < 6; ++j) {
    keys.push_back(randomVector(rng, hd, 3.0));
    values.push_back(randomVector(rng, hd, 1.0));
    far.push(l, keys.back().data(), values.back().data(), scale);
  }
  EXPECT_EQ(far.folded(), 6u);
  for (size_t b = 0; b < m; ++b) {
    float z = -1e30f;
    for (auto &k : keys)
      z = std::max(z, dot(l.keys.data() + b * hd, k.data(), hd) * scale);
    EXPECT_FLOAT_EQ(far.logScale()[b], z);
    double n = 0, theta0 = 0;
    for (size_t j = 0; j < keys.size(); ++j) {
      const double w = std::exp(
          dot(l.keys.data() + b * hd, keys[j].data(), hd) * scale - z);
      n += w;
      theta0 += w * values[j][0];
    }
    EXPECT_NEAR(far.mass()[b], n, 1e-5);
    EXPECT_NEAR(far.valueSum()[b * hd], theta0, 1e-5);
  }
}

TEST(NystromFarField, FarKeysThatAreTheLandmarksGiveExactAttention) {
  SplitMix64 rng(17);
  const size_t m = 4, hd = 8;
  const float scale = 2.5f;
  // Landmarks and the query on the unit sphere, as Dory's prep leaves them.
  std::vector<float> landmarkKeys;
  for (size_t a = 0; a < m; ++a) {
    const std::vector<float> k = unitNorm(randomVector(rng, hd, 1.0), 0.0f);
    landmarkKeys.insert(landmarkKeys.end(), k.begin(), k.end());
  }
  const NystromLandmarks l = sealLandmarks(landmarkKeys, m, hd, scale);
  FarFieldAccumulator far(m, hd);
  std::vector<std::vector<float>> farValues;
  for (size_t a = 0; a < m; ++a) {
    farValues.push_back(randomVector(rng, hd, 1.0));
    far.push(l, landmarkKeys.data() + a * hd, farValues.back().data(), scale);
  }
  std::vector<std::vector<float>> nearK, nearV;
  for (int j = 0; j < 3; ++j) {
    nearK.push_back(unitNorm(randomVector(rng, hd, 1.0), 0.0f));
    nearV.push_back(randomVector(rng, hd, 1.0));
  }
  const std::vector<float> q = unitNorm(randomVector(rng, hd, 1.0), 0.0f);
  std::vector<const float *> keys, values;
  for (int j = 0; j < 3; ++j) {
    keys.push_back(nearK[j].data());
    values.push_back(nearV[j].data());
  }
  const std::vector<float> got =
      attendNearFar(q.data(), keys, values, hd, scale, &l, &far, false);

  // Exact softmax attention over the near keys and the landmark keys.
  std::vector<float> scores;
  std::vector<const float *> all = values;
  for (int j = 0; j < 3; ++j)
    scores.push_back(dot(q.data(), nearK[j].data(), hd) * scale);
  for (size_t a = 0; a < m; ++a) {
    scores.push_back(dot(q.data(), landmarkKeys.data() + a * hd, hd) * scale);
    all.push_back(farValues[a].data());
  }
  const std::vector<float> lp = logSoftmax(scores);
  for (size_t d = 0; d < hd; ++d) {
    double expected = 0;
    for (size_t u = 0; u < lp.size(); ++u)
      expected += std::exp(static_cast<double>(lp[u])) * all[u][d];
    EXPECT_NEAR(got[d], expected, 2e-4) << "d=" << d;
  }
  // Without the far field the answer is measurably different.
  const std::vector<float> nearOnly =
      attendNearFar(q.data(), keys, values, hd, scale, nullptr, nullptr, false);
  float gap = 0;
  for (size_t d = 0; d < hd; ++d)
    gap = std::max(gap, std::fabs(nearOnly[d] - got[d]));
  EXPECT_GT(gap, 1e-2f);
}

TEST(NystromFarField, NothingFoldedMeansPlainSoftmax) {
  const float q[2] = {1, 0}, k0[2] = {1, 0}, k1[2] = {0, 1};
  const float v0[2] = {1, 0}, v1[2] = {0, 1};
  const NystromLandmarks l = sealLandmarks({1, 0}, 1, 2, 1.0f);
  const FarFieldAccumulator empty(1, 2);
  const std::vector<float> o =
      attendNearFar(q, {k0, k1}, {v0, v1}, 2, 1.0f, &l, &empty, true);
  const float e = std::exp(1.0f);
  EXPECT_FLOAT_EQ(o[0], e / (e + 1));
  EXPECT_FLOAT_EQ(o[1], 1 / (e + 1));
}

// Dory's sinks (issue 15) are the first entries of the near set that
// DorySession hands to attendNearFar: they take part in the max and the sum
// like any window key. A hand case: a sink scoring 40 above every other key
// takes the whole weight (e^-40 ≈ 4e-18 is below f32's resolution at 1).
TEST(NystromFarField, DominantSinkTakesTheWholeWeight) {
  const float q[2] = {1, 0};
  const float sinkKey[2] = {40, 0}, sinkValue[2] = {0.25f, -3};
  const float k0[2] = {0, 1}, k1[2] = {-1, 0};
  const float v0[2] = {7, 7}, v1[2] = {-5, 9};
  const std::vector<float> o = attendNearFar(
      q, {sinkKey, k0, k1}, {sinkValue, v0, v1}, 2, 1.0f, nullptr, nullptr, false);
  EXPECT_EQ(o[0], 0.25f);
  EXPECT_EQ(o[1], -3.0f);

  // With a far field whose keys score like the window's, the common exponent
  // is the sink's score and the far mass vanishes beside it too.
  const NystromLandmarks l = sealLandmarks({0, 1}, 1, 2, 1.0f);
  FarFieldAccumulator far(1, 2);
  const float farKey[2] = {0, 1}, farValue[2] = {100, 100};
  far.push(l, farKey, farValue, 1.0f);
  const std::vector<float> withFar = attendNearFar(
      q, {sinkKey, k0, k1}, {sinkValue, v0, v1}, 2, 1.0f, &l, &far, true);
  EXPECT_EQ(withFar[0], 0.25f);
  EXPECT_EQ(withFar[1], -3.0f);
}

// A sink scoring exactly like a window key shares the weight with it evenly:
// it is in the normaliser, not only the max.
TEST(NystromFarField, SinkIsInTheSoftmaxSum) {
  const float q[2] = {1, 0};
  const float sinkKey[2] = {1, 0}, sinkValue[2] = {2, 0};
  const float k0[2] = {1, 0}, v0[2] = {0, 4};
  const std::vector<float> o =
      attendNearFar(q, {sinkKey, k0}, {sinkValue, v0}, 2, 1.0f, nullptr,
                    nullptr, false);
  EXPECT_FLOAT_EQ(o[0], 1.0f);
  EXPECT_FLOAT_EQ(o[1], 2.0f);
}
