//===- QuantizeTest.cpp - q8_2f fit and its error bound -------------------===//
#include "kiln/IO/Quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

using namespace kiln::io;

namespace {

/// A deterministic matrix whose rows and columns have very different
/// magnitudes (the case two scales exist for).
std::vector<float> unevenMatrix(int64_t rows, int64_t cols) {
  std::vector<float> w(static_cast<size_t>(rows * cols));
  uint64_t state = 12345;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      double unit = static_cast<double>(state >> 11) * 0x1.0p-53 - 0.5;
      double rowGain = 1.0 + 9.0 * static_cast<double>(r % 5) / 4.0;
      double colGain = c % 7 == 0 ? 8.0 : 1.0;
      w[r * cols + c] = static_cast<float>(unit * rowGain * colGain * 0.1);
    }
  return w;
}

TEST(Quantize, ErrorWithinTheRoundingBound) {
  const int64_t rows = 64, cols = 96;
  std::vector<float> w = unevenMatrix(rows, cols);
  Expected<QuantizedMatrix> q = quantizeQ8_2F(w.data(), rows, cols);
  ASSERT_TRUE(q) << q.error().message();
  QuantizationError error = measureQuantizationError(w.data(), *q);
  // Each element is within half a code step s[r]·t[c]/2 (f32 slack only).
  EXPECT_LE(error.maxBoundRatio, 1.0 + 1e-5);
  EXPECT_GT(error.maxBoundRatio, 0.5); // the bound is tight, not vacuous
  // Measured on this matrix: 0.0055 of the row's largest weight, inside the
  // 1/127 a single per-row scale would give.
  EXPECT_LE(error.maxRowRelative, 1.0 / 127.0);
  EXPECT_GT(error.maxAbs, 0.0);
  EXPECT_LT(error.rms, error.maxAbs);
  std::printf("q8_2f uneven 64x96: maxAbs %.3g maxRowRelative %.4f rms %.3g "
              "boundRatio %.4f\n",
              error.maxAbs, error.maxRowRelative, error.rms,
              error.maxBoundRatio);
}

TEST(Quantize, CodesUseTheFullRangeAndStayInIt) {
  const int64_t rows = 16, cols = 24;
  std::vector<float> w = unevenMatrix(rows, cols);
  Expected<QuantizedMatrix> q = quantizeQ8_2F(w.data(), rows, cols);
  ASSERT_TRUE(q);
  for (int64_t r = 0; r < rows; ++r) {
    int maxCode = 0;
    for (int64_t c = 0; c < cols; ++c) {
      int code = q->codes[r * cols + c];
      EXPECT_GE(code, -127);
      EXPECT_LE(code, 127);
      maxCode = std::max(maxCode, std::abs(code));
    }
    EXPECT_EQ(maxCode, 127) << "row " << r;
  }
  // Column scale is the square root of the column's largest magnitude.
  for (int64_t c = 0; c < cols; ++c) {
    float columnMax = 0;
    for (int64_t r = 0; r < rows; ++r)
      columnMax = std::max(columnMax, std::fabs(w[r * cols + c]));
    EXPECT_FLOAT_EQ(q->colScale[c], std::sqrt(columnMax));
  }
}

TEST(Quantize, SignMatrixIsExact) {
  // Every |W| equal: t = sqrt(m), s = sqrt(m)/127, codes ±127, so s·q·t = W
  // up to f32 rounding.
  const float w[2 * 3] = {4.0f, -4.0f, 4.0f, -4.0f, -4.0f, 4.0f};
  Expected<QuantizedMatrix> q = quantizeQ8_2F(w, 2, 3);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->codes, (std::vector<int8_t>{127, -127, 127, -127, -127, 127}));
  EXPECT_EQ(q->colScale, (std::vector<float>{2.0f, 2.0f, 2.0f}));
  std::vector<float> back = dequantizeQ8_2F(*q);
  for (int i = 0; i < 6; ++i)
    EXPECT_NEAR(back[i], w[i], 1e-6f * std::fabs(w[i])) << i;
}

TEST(Quantize, ZeroRowsAndColumns) {
  const float w[2 * 2] = {0.0f, 0.0f, 0.0f, 3.0f};
  Expected<QuantizedMatrix> q = quantizeQ8_2F(w, 2, 2);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->rowScale[0], 1.0f);
  EXPECT_EQ(q->colScale[0], 1.0f);
  std::vector<float> back = dequantizeQ8_2F(*q);
  EXPECT_EQ(back[0], 0.0f);
  EXPECT_EQ(back[1], 0.0f);
  EXPECT_EQ(back[2], 0.0f);
  EXPECT_NEAR(back[3], 3.0f, 1e-6f);
}

TEST(Quantize, RefusesBadInput) {
  const float w[2] = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  Expected<QuantizedMatrix> nan = quantizeQ8_2F(w, 1, 2);
  ASSERT_FALSE(nan);
  EXPECT_EQ(nan.error().message(), "q8_2f: weight [0][1] is not finite");
  Expected<QuantizedMatrix> empty = quantizeQ8_2F(w, 0, 2);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message(), "q8_2f: matrix shape [0, 2] must be positive");
}

} // namespace
