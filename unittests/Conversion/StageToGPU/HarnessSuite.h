//===- HarnessSuite.h - Test-only: one Vulkan harness per test suite -*- C++ -*-===//
//
// The fixture base of the kernel execution suites: the harness is created once
// per suite (a Vulkan device is slow to create) and every test of the suite is
// skipped, naming why, when no device is usable. `Suite` is the fixture
// itself, so each suite has its own harness.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_UNITTESTS_TARGET_HARNESSSUITE_H
#define KILN_UNITTESTS_TARGET_HARNESSSUITE_H

#include "VulkanHarness.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln::test {

template <typename Suite> class HarnessSuite : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    std::string error;
    harness = VulkanHarness::create(error).release();
    if (!harness)
      setupError = error;
  }
  static void TearDownTestSuite() {
    delete harness;
    harness = nullptr;
  }
  void SetUp() override {
    if (!harness)
      GTEST_SKIP() << "no Vulkan device: " << setupError;
  }

  static inline VulkanHarness *harness = nullptr;
  static inline std::string setupError;
};

} // namespace kiln::test

#endif // KILN_UNITTESTS_TARGET_HARNESSSUITE_H
