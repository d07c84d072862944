//===- SamplerTest.cpp - splitmix64, greedy and top-p ---------------------===//

#include "kiln/Reference/Sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace kiln::ref;

TEST(Sampler, SplitMix64KnownSequence) {
  // Reference values of splitmix64 seeded with 0 (Vigna's published code).
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(rng.next(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(rng.next(), 0x06c45d188009454full);
}

TEST(Sampler, GreedyTakesTheLowestIdOfTheMaximum) {
  SplitMix64 rng(1);
  EXPECT_EQ(sampleToken({-3, -1, -1, -2}, SamplingOptions{}, rng), 1);
}

TEST(Sampler, TopPKeepsOnlyTheNucleus) {
  // Probabilities 0.6, 0.3, 0.1: top_p 0.5 keeps token 2 alone.
  const std::vector<float> lp = {std::log(0.1f), std::log(0.3f),
                                 std::log(0.6f)};
  SamplingOptions o;
  o.greedy = false;
  o.topP = 0.5;
  SplitMix64 rng(99);
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(sampleToken(lp, o, rng), 2);
  // top_p 0.85 keeps {2, 1}; token 0 never comes.
  o.topP = 0.85;
  int seen[3] = {0, 0, 0};
  for (int i = 0; i < 400; ++i)
    ++seen[sampleToken(lp, o, rng)];
  EXPECT_EQ(seen[0], 0);
  EXPECT_GT(seen[1], 60);
  EXPECT_GT(seen[2], 200);
}

TEST(Sampler, SameSeedSameTokensAndDroppedTokensNeverPicked) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> lp = {-inf, std::log(0.5f), -inf, std::log(0.5f)};
  SamplingOptions o;
  o.greedy = false;
  o.temperature = 0.7;
  SplitMix64 a(42), b(42);
  for (int i = 0; i < 100; ++i) {
    const int t = sampleToken(lp, o, a);
    EXPECT_EQ(t, sampleToken(lp, o, b));
    EXPECT_TRUE(t == 1 || t == 3);
  }
}
