//===- Matrix.h - Dense f32 matrices and the matrix-vector product -*- C++ -*-===//
//
// The reference multiplies on dequantized f32 weights: whatever a file stores
// (f16, or q8_2f's row field · int8 code · column field), it is expanded once
// to f32 here, so the oracle does not share the GPU's fold of the column field
// into the producing stage. That fold is exact in real arithmetic; only f32
// rounding separates the two.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_MATRIX_H
#define KILN_REFERENCE_MATRIX_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::ref {

/// A row-major f32 matrix: y = M x has `rows` outputs and reads `cols` inputs.
struct Matrix {
  size_t rows = 0;
  size_t cols = 0;
  std::vector<float> data; // rows * cols

  const float *row(size_t r) const { return data.data() + r * cols; }
};

/// y[r] = Σ_c M[r][c] x[c], accumulated in f32 in column order.
/// `x` must hold `m.cols` values.
std::vector<float> matVec(const Matrix &m, const float *x);
std::vector<float> matVec(const Matrix &m, const std::vector<float> &x);

/// Expands IEEE half bits (row-major) to f32.
Matrix matrixFromHalf(size_t rows, size_t cols, const uint16_t *halfBits);

/// Expands q8_2f: W[r][c] = (rowScale[r] · q[r][c]) · colScale[c], in f32.
Matrix matrixFromQ8(size_t rows, size_t cols, const int8_t *codes,
                    const float *rowScale, const float *colScale);

} // namespace kiln::ref

#endif // KILN_REFERENCE_MATRIX_H
