#include "kiln/Cost/NativeTarget.h"

#include <gtest/gtest.h>

using kiln::cost::nativeTargetName;
using kiln::cost::shippedTargetForDevice;

TEST(NativeTarget, DriverNamesMapToShippedDescriptors) {
  EXPECT_EQ(shippedTargetForDevice("llvmpipe (LLVM 15.0.6, 256 bits)"), "lavapipe");
  EXPECT_EQ(shippedTargetForDevice("NVIDIA H200"), "h200");
  EXPECT_EQ(shippedTargetForDevice("NVIDIA RTX 2000 Ada Generation"), "rtx-2000-ada");
  EXPECT_EQ(shippedTargetForDevice("Apple M4"), "apple-m4");
  EXPECT_EQ(shippedTargetForDevice("AMD Radeon RX 7900"), std::nullopt);
}

TEST(NativeTarget, AGpuComesBeforeTheCpuDevice) {
  auto picked = nativeTargetName({{"llvmpipe (LLVM 15.0.6, 256 bits)", true}, {"NVIDIA H200", false}});
  ASSERT_TRUE(picked);
  EXPECT_EQ(*picked, "h200");
  // An unknown GPU does not hide a known CPU device.
  picked = nativeTargetName({{"AMD Radeon RX 7900", false}, {"llvmpipe (LLVM 15)", true}});
  ASSERT_TRUE(picked);
  EXPECT_EQ(*picked, "lavapipe");
}

TEST(NativeTarget, NoKnownDeviceNamesThemAll) {
  auto picked = nativeTargetName({{"AMD Radeon RX 7900", false}});
  ASSERT_FALSE(picked);
  EXPECT_NE(picked.error().message().find("'AMD Radeon RX 7900'"), std::string::npos);
  EXPECT_NE(picked.error().message().find("--target-file"), std::string::npos);
  EXPECT_FALSE(nativeTargetName({}));
}
