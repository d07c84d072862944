//===- AnchorAttentionTest.cpp - Ring, sinks, windows and the e^-16 floor -===//

#include "kiln/Reference/Activations.h"
#include "kiln/Reference/AnchorAttention.h"
#include "kiln/Reference/Rotary.h"
#include "kiln/Reference/Sampler.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kiln::ref;

TEST(AnchorAttention, FloorKeepsExactlyMinus16AndDropsBelow) {
  // −16 is kept (score − max ≥ −16); the next float below is dropped.
  const float justBelow = std::nextafter(-16.0f, -17.0f);
  const std::vector<float> w = flooredSoftmax({0.0f, -16.0f, justBelow});
  const float kept = std::exp(-16.0f);
  EXPECT_FLOAT_EQ(w[0], 1.0f / (1.0f + kept));
  EXPECT_FLOAT_EQ(w[1], kept / (1.0f + kept));
  EXPECT_EQ(w[2], 0.0f);
}

TEST(AnchorAttention, FloorIsRelativeToTheMaximum) {
  const std::vector<float> w = flooredSoftmax({100.0f, 84.5f, 83.5f});
  EXPECT_GT(w[1], 0.0f);
  EXPECT_EQ(w[2], 0.0f);
}

namespace {
// One query head, one KV head, hd = 4 (scale 1/2), ring window 1.
AnchorShape tinyShape(size_t sinks) {
  AnchorShape s;
  s.queryHeads = 1;
  s.kvHeads = 1;
  s.headDim = 4;
  s.window = 1;
  s.sinks = sinks;
  s.groupWindows = {1};
  return s;
}
} // namespace

TEST(AnchorAttention, SinkScoresAgainstTheUnrotatedQuery) {
  const AnchorShape shape = tinyShape(1);
  const size_t position = 37;
  const float plain[4] = {1.0f, 0.5f, -0.25f, 2.0f};
  float rotated[4];
  std::copy(plain, plain + 4, rotated);
  applyRotary(rotated, 4, position, 10.0);
  const std::vector<float> sinkK = {0.8f, -0.4f, 0.3f, 0.2f};
  const std::vector<float> sinkV = {1, 0, 0, 0};
  AnchorKvRing ring(1, 1, 4);
  float key[4] = {0.1f, 0.2f, 0.3f, 0.4f}, value[4] = {0, 1, 0, 0};
  applyRotary(key, 4, position, 10.0);
  ring.write(position, key, value);
  const std::vector<float> o =
      anchorAttend(shape, ring, sinkK, sinkV, rotated, plain, position);
  // By hand: the sink against the plain query, the key against the rotated
  // one (which equals the plain dot product of the unrotated pair).
  const float sinkScore = dot(plain, sinkK.data(), 4) / 2.0f;
  const float plainKey[4] = {0.1f, 0.2f, 0.3f, 0.4f};
  const float keyScore = dot(plain, plainKey, 4) / 2.0f;
  const float ws = std::exp(sinkScore), wk = std::exp(keyScore);
  EXPECT_NEAR(o[0], ws / (ws + wk), 1e-5);
  EXPECT_NEAR(o[1], wk / (ws + wk), 1e-5);
  // Against the rotated query the sink would score differently: the test
  // can tell the two apart.
  EXPECT_GT(std::fabs(dot(rotated, sinkK.data(), 4) / 2.0f - sinkScore), 0.1f);
}

TEST(AnchorAttention, KeyUnderTheFloorLeavesTheValueSum) {
  // Sinks scoring 0 and −16.5, the ring key −15.5: q = (32, 0, 0, 0).
  const AnchorShape shape = tinyShape(2);
  const float q[4] = {32, 0, 0, 0};
  const std::vector<float> sinkK = {0, 0, 0, 0, -16.5f / 16.0f, 0, 0, 0};
  const std::vector<float> sinkV = {1, 0, 0, 0, 0, 1, 0, 0};
  AnchorKvRing ring(1, 1, 4);
  const float key[4] = {-15.5f / 16.0f, 0, 0, 0}, value[4] = {0, 0, 1, 0};
  ring.write(0, key, value);
  const std::vector<float> o = anchorAttend(shape, ring, sinkK, sinkV, q, q, 0);
  const float kept = std::exp(-15.5f);
  EXPECT_FLOAT_EQ(o[0], 1.0f / (1.0f + kept));
  EXPECT_EQ(o[1], 0.0f); // the dropped sink's value is absent
  EXPECT_FLOAT_EQ(o[2], kept / (1.0f + kept));
}

TEST(AnchorAttention, RingAfterWindowPlusFiveEqualsNaiveWindowedHistory) {
  // 4 query heads over 2 KV heads, hd 8, rd 4, W 6 with group windows {6, 3},
  // two sinks; W+5 = 11 positions of random projections.
  AnchorShape shape;
  shape.queryHeads = 4;
  shape.kvHeads = 2;
  shape.headDim = 8;
  shape.window = 6;
  shape.sinks = 2;
  shape.groupWindows = {6, 3};
  const size_t hd = 8, rd = 4, steps = shape.window + 5;
  SplitMix64 rng(7);
  auto random = [&](size_t n) {
    std::vector<float> v(n);
    for (float &x : v)
      x = static_cast<float>(rng.uniform() * 2.0 - 1.0);
    return v;
  };
  const std::vector<float> sinkK = random(2 * 2 * hd), sinkV = random(2 * 2 * hd);
  AnchorKvRing ring(2, shape.window, hd);
  std::vector<std::vector<float>> historyK, historyV;
  for (size_t t = 0; t < steps; ++t) {
    std::vector<float> plain = random(4 * hd), q = plain;
    std::vector<float> k = random(2 * hd), v = random(2 * hd);
    for (size_t h = 0; h < 4; ++h)
      applyRotary(q.data() + h * hd, rd, t, 10000.0);
    for (size_t h = 0; h < 2; ++h)
      applyRotary(k.data() + h * hd, rd, t, 10000.0);
    ring.write(t, k.data(), v.data());
    historyK.push_back(k);
    historyV.push_back(v);
    const std::vector<float> o =
        anchorAttend(shape, ring, sinkK, sinkV, q.data(), plain.data(), t);
    for (size_t hq = 0; hq < 4; ++hq) {
      const size_t kh = hq / 2, window = shape.groupWindows[kh];
      std::vector<float> scores;
      std::vector<const float *> values;
      for (size_t s = 0; s < 2; ++s) {
        scores.push_back(dot(plain.data() + hq * hd,
                             sinkK.data() + (kh * 2 + s) * hd, hd) /
                         std::sqrt(8.0f));
        values.push_back(sinkV.data() + (kh * 2 + s) * hd);
      }
      for (size_t j = (t + 1 > window ? t + 1 - window : 0); j <= t; ++j) {
        scores.push_back(dot(q.data() + hq * hd, historyK[j].data() + kh * hd,
                             hd) / std::sqrt(8.0f));
        values.push_back(historyV[j].data() + kh * hd);
      }
      const std::vector<float> w = flooredSoftmax(scores);
      for (size_t d = 0; d < hd; ++d) {
        float expected = 0.0f;
        for (size_t u = 0; u < w.size(); ++u)
          expected += w[u] * values[u][d];
        EXPECT_NEAR(o[hq * hd + d], expected, 1e-5)
            << "t=" << t << " head=" << hq << " d=" << d;
      }
    }
  }
}
