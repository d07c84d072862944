//===- LoopMixTest.cpp - Slerp residual and the five loop edges -----------===//

#include "kiln/Reference/Activations.h"
#include "kiln/Reference/LoopMix.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kiln::ref;

namespace {
float norm(const std::vector<float> &x) {
  return std::sqrt(dot(x.data(), x.data(), x.size()));
}
const float kEps = 1e-6f;
} // namespace

TEST(LoopMix, SlerpByHand) {
  std::vector<float> h = {2, 0};
  slerpResidual(h, {0, 5}, {0.5f, 0.5f}, 0.0f);
  EXPECT_FLOAT_EQ(h[0], std::sqrt(0.5f));
  EXPECT_FLOAT_EQ(h[1], std::sqrt(0.5f));
  // α = 0 keeps the direction, α = 1 takes the update's.
  std::vector<float> keep = {3, 4};
  slerpResidual(keep, {1, -1}, {0, 0}, 0.0f);
  EXPECT_FLOAT_EQ(keep[0], 0.6f);
  std::vector<float> take = {3, 4};
  slerpResidual(take, {0, -2}, {1, 1}, 0.0f);
  EXPECT_FLOAT_EQ(take[1], -1.0f);
}

TEST(LoopMix, SlerpLeavesAUnitVector) {
  std::vector<float> h = {0.3f, -2, 5, 1};
  slerpResidual(h, {4, 4, -1, 0.5f}, {0.1f, 0.9f, 0.3f, 0.05f}, kEps);
  EXPECT_NEAR(norm(h), 1.0f, 1e-6);
}

TEST(LoopMix, EnterKeepsTheInputAndNormalises) {
  std::vector<float> h = {3, 4};
  LoopRowState row;
  applyLoopMix(LoopMixMode::Enter, h, row, kEps);
  EXPECT_EQ(row.input, (std::vector<float>{3, 4}));
  EXPECT_EQ(row.kept, (std::vector<float>{3, 4}));
  EXPECT_NEAR(h[0], 0.6f, 1e-6);
  EXPECT_NEAR(norm(h), 1.0f, 1e-6);
}

TEST(LoopMix, BetweenIsReadOutThenResume) {
  const std::vector<float> start = {0.2f, -1.5f, 0.7f};
  LoopRowState a{{1, 0, 0}, {9, 9, 9}}, b = a;
  std::vector<float> ha = start, hb = start;
  applyLoopMix(LoopMixMode::Between, ha, a, kEps);
  applyLoopMix(LoopMixMode::ReadOut, hb, b, kEps);
  applyLoopMix(LoopMixMode::Resume, hb, b, kEps);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_FLOAT_EQ(ha[i], hb[i]);
    EXPECT_FLOAT_EQ(a.kept[i], b.kept[i]);
  }
  // The kept state is the unit read-out; h is unit(st + in).
  EXPECT_NEAR(norm(a.kept), 1.0f, 1e-6);
  EXPECT_NEAR(norm(ha), 1.0f, 1e-6);
}

TEST(LoopMix, EveryModeLeavesAUnitVector) {
  for (int mode = 0; mode <= 4; ++mode) {
    std::vector<float> h = {5, -3, 0.5f, 2};
    LoopRowState row{{0.1f, 0.2f, 0.3f, 0.4f}, {1, 0, 0, 0}};
    applyLoopMix(static_cast<LoopMixMode>(mode), h, row, kEps);
    EXPECT_NEAR(norm(h), 1.0f, 1e-6) << "mode " << mode;
  }
}

TEST(LoopMix, LeaveAndReadOutTouchOnlyWhatTheySay) {
  std::vector<float> h = {0, 2};
  LoopRowState row{{1, 1}, {7, 7}};
  applyLoopMix(LoopMixMode::Leave, h, row, 0.0f);
  EXPECT_EQ(row.kept, (std::vector<float>{7, 7}));
  EXPECT_EQ(h, (std::vector<float>{0, 1}));
  applyLoopMix(LoopMixMode::ReadOut, h, row, 0.0f);
  EXPECT_EQ(row.kept, h);
}
