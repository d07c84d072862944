//===- CausalConvTest.cpp - The GDN conv ring -----------------------------===//

#include "kiln/Reference/CausalConv.h"

#include <gtest/gtest.h>

using namespace kiln::ref;

TEST(CausalConv, NewestTapIsLastAndRingShifts) {
  // One channel, three taps: y_t = c_t·t2 + c_{t-1}·t1 + c_{t-2}·t0.
  CausalConvRing ring(1, 3);
  const std::vector<float> taps = {100.0f, 10.0f, 1.0f};
  EXPECT_EQ(ring.step({1.0f}, taps)[0], 1.0f);          // zeros before
  EXPECT_EQ(ring.step({2.0f}, taps)[0], 2.0f + 10.0f);  // 2·1 + 1·10
  EXPECT_EQ(ring.step({3.0f}, taps)[0], 3.0f + 20.0f + 100.0f);
  EXPECT_EQ(ring.step({0.0f}, taps)[0], 30.0f + 200.0f); // 1 has left
  ring.reset();
  EXPECT_EQ(ring.step({5.0f}, taps)[0], 5.0f);
}

TEST(CausalConv, ChannelsAreIndependent) {
  CausalConvRing ring(2, 2);
  const std::vector<float> taps = {2.0f, 1.0f, /*channel 1*/ -1.0f, 3.0f};
  ring.step({1.0f, 10.0f}, taps);
  const std::vector<float> y = ring.step({4.0f, 20.0f}, taps);
  EXPECT_EQ(y[0], 4.0f * 1.0f + 1.0f * 2.0f);
  EXPECT_EQ(y[1], 20.0f * 3.0f + 10.0f * -1.0f);
}

TEST(CausalConv, SingleTapHasNoMemory) {
  CausalConvRing ring(1, 1);
  ring.step({7.0f}, {2.0f});
  EXPECT_EQ(ring.step({3.0f}, {2.0f})[0], 6.0f);
}
