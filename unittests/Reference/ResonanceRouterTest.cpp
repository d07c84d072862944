//===- ResonanceRouterTest.cpp - Scores, shells, ties, all masked ---------===//

#include "kiln/Reference/ResonanceRouter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace kiln::ref;

namespace {
// Two-dimensional hidden, rank 1; expert e has centre μ_e and basis U_e.
ResonanceRouterWeights router(std::vector<float> shells) {
  ResonanceRouterWeights w;
  w.experts = 3;
  w.rank = 1;
  w.hidden = 2;
  w.centres = {0, 0, /*1*/ 1, 0, /*2*/ 0, 2};
  w.basis = {1, 0, /*1*/ 0, 1, /*2*/ 1, 0};
  w.bias = {0, 0, 0};
  w.shells = std::move(shells);
  return w;
}
const float kInf = std::numeric_limits<float>::infinity();
} // namespace

TEST(ResonanceRouter, ErrorIsTheResidualOffTheSubspace) {
  // x = (3, 1): expert 0: |x|² − (x·e0)² = 10 − 9 = 1;
  // expert 1: x−μ = (2, 1), 5 − 1 = 4; expert 2: x−μ = (3, −1), 10 − 9 = 1.
  const RouteDecision d = routeResonance(router({}), {3, 1});
  EXPECT_FLOAT_EQ(d.errors[0], 1.0f);
  EXPECT_FLOAT_EQ(d.errors[1], 4.0f);
  EXPECT_FLOAT_EQ(d.errors[2], 1.0f);
  // Experts 0 and 2 tie at −1: the lower id wins.
  EXPECT_EQ(d.expert, 0u);
}

TEST(ResonanceRouter, BiasBreaksTheTie) {
  ResonanceRouterWeights w = router({});
  w.bias = {0, 0, 0.5f};
  EXPECT_EQ(routeResonance(w, {3, 1}).expert, 2u);
}

TEST(ResonanceRouter, ShellMasksAnExpert) {
  // Expert 0's shell 0.5 < err 1 masks it; expert 2 (err 1 ≤ shell 1) wins.
  const RouteDecision d = routeResonance(router({0.5f, kInf, 1.0f}), {3, 1});
  EXPECT_TRUE(std::isinf(d.scores[0]) && d.scores[0] < 0);
  EXPECT_FLOAT_EQ(d.scores[2], -1.0f);
  EXPECT_EQ(d.expert, 2u);
  EXPECT_FALSE(d.allMasked);
}

TEST(ResonanceRouter, TrunkExpertWithInfiniteShellIsNeverMasked) {
  const RouteDecision d = routeResonance(router({0.5f, kInf, 0.5f}), {30, 10});
  EXPECT_EQ(d.expert, 1u);
  EXPECT_FALSE(std::isinf(d.scores[1]));
}

TEST(ResonanceRouter, AllMaskedPicksExpertZero) {
  const RouteDecision d = routeResonance(router({0.1f, 0.1f, 0.1f}), {3, 1});
  EXPECT_TRUE(d.allMasked);
  EXPECT_EQ(d.expert, 0u);
}
