//===- Matrix.cpp - Dense f32 matrices and the matrix-vector product ------===//

#include "kiln/Reference/Matrix.h"

#include "kiln/IO/Half.h"

namespace kiln::ref {

std::vector<float> matVec(const Matrix &m, const float *x) {
  std::vector<float> y(m.rows, 0.0f);
  for (size_t r = 0; r < m.rows; ++r) {
    const float *w = m.row(r);
    float sum = 0.0f;
    for (size_t c = 0; c < m.cols; ++c)
      sum += w[c] * x[c];
    y[r] = sum;
  }
  return y;
}

std::vector<float> matVec(const Matrix &m, const std::vector<float> &x) {
  return matVec(m, x.data());
}

Matrix matrixFromHalf(size_t rows, size_t cols, const uint16_t *halfBits) {
  Matrix m{rows, cols, std::vector<float>(rows * cols)};
  for (size_t i = 0; i < rows * cols; ++i)
    m.data[i] = io::halfBitsToFloat(halfBits[i]);
  return m;
}

Matrix matrixFromQ8(size_t rows, size_t cols, const int8_t *codes,
                    const float *rowScale, const float *colScale) {
  Matrix m{rows, cols, std::vector<float>(rows * cols)};
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      m.data[r * cols + c] =
          (rowScale[r] * static_cast<float>(codes[r * cols + c])) * colScale[c];
  return m;
}

} // namespace kiln::ref
