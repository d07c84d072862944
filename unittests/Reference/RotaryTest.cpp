//===- RotaryTest.cpp - Rotary pairs (i, i + rd/2) ------------------------===//

#include "kiln/Reference/Rotary.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kiln::ref;

TEST(Rotary, RotatesPairsByPositionTimesFrequency) {
  // rd = 4: pairs (0, 2) at θ^0 = 1 rad per position, (1, 3) at θ^(−1/2).
  float x[6] = {1, 1, 0, 0, 7, 8};
  applyRotary(x, 4, 2, 100.0);
  EXPECT_NEAR(x[0], std::cos(2.0), 1e-6);
  EXPECT_NEAR(x[2], std::sin(2.0), 1e-6);
  EXPECT_NEAR(x[1], std::cos(0.2), 1e-6);
  EXPECT_NEAR(x[3], std::sin(0.2), 1e-6);
  // Dims at or past rd pass through.
  EXPECT_EQ(x[4], 7.0f);
  EXPECT_EQ(x[5], 8.0f);
}

TEST(Rotary, UndoIsTheInverseAndRelativeAngleIsAllThatMatters) {
  float q[4] = {0.3f, -1.0f, 2.0f, 0.5f}, k[4] = {1.0f, 0.2f, -0.7f, 0.9f};
  float q2[4], k2[4];
  std::copy(q, q + 4, q2);
  std::copy(k, k + 4, k2);
  applyRotary(q, 4, 9, 10000.0);
  applyRotary(k, 4, 4, 10000.0);
  applyRotary(q2, 4, 5, 10000.0);
  applyRotary(k2, 4, 0, 10000.0);
  float a = 0, b = 0;
  for (int i = 0; i < 4; ++i) {
    a += q[i] * k[i];
    b += q2[i] * k2[i];
  }
  EXPECT_NEAR(a, b, 1e-5);
  undoRotary(q2, 4, 5, 10000.0);
  EXPECT_NEAR(q2[0], 0.3f, 1e-6);
  EXPECT_NEAR(q2[2], 2.0f, 1e-6);
}
