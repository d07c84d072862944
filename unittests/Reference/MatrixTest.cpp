//===- MatrixTest.cpp - Dequantization and the matrix-vector product ------===//

#include "kiln/IO/Half.h"
#include "kiln/Reference/Matrix.h"

#include <gtest/gtest.h>

using namespace kiln::ref;

TEST(Matrix, Q8DequantizesRowTimesCodeTimesColumn) {
  const int8_t codes[4] = {1, -2, 127, 0};
  const float rows[2] = {0.5f, 2.0f};
  const float cols[2] = {3.0f, 0.25f};
  const Matrix m = matrixFromQ8(2, 2, codes, rows, cols);
  EXPECT_EQ(m.data[0], 0.5f * 1 * 3.0f);
  EXPECT_EQ(m.data[1], 0.5f * -2 * 0.25f);
  EXPECT_EQ(m.data[2], 2.0f * 127 * 3.0f);
  EXPECT_EQ(m.data[3], 0.0f);
}

TEST(Matrix, HalfExpandsExactly) {
  const uint16_t bits[2] = {kiln::io::floatToHalfBits(1.5f),
                            kiln::io::floatToHalfBits(-0.25f)};
  const Matrix m = matrixFromHalf(1, 2, bits);
  EXPECT_EQ(m.data[0], 1.5f);
  EXPECT_EQ(m.data[1], -0.25f);
}

TEST(Matrix, MatVecHasRowsOutputs) {
  const Matrix m{2, 3, {1, 2, 3, 4, 5, 6}};
  const std::vector<float> y = matVec(m, {1.0f, 0.0f, -1.0f});
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(y[0], -2.0f);
  EXPECT_EQ(y[1], -2.0f);
}
