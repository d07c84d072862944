//===- Quantize.h - The q8_2f matrix quantizer -----------------*- C++ -*-===//
//
// q8_2f stores a matrix W [rows, cols] as int8 codes q with one f32 scale per
// row, s, and one per column, t:  W[r][c] ~= s[r] * q[r][c] * t[c].
//
// The fit (documented in docs/weights.md):
//   t[c] = sqrt(max_r |W[r][c]|)            (1 for an all-zero column)
//   s[r] = max_c |W[r][c] / t[c]| / 127     (1 for an all-zero row)
//   q    = clamp(round_half_away(W / (s t)), -127, 127)
// The square root splits each column's range evenly between the two scales,
// so neither a loud column nor a loud row takes the whole code range. Every
// element's error is then at most s[r]·t[c]/2 (the bound the tests assert).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IO_QUANTIZE_H
#define KILN_IO_QUANTIZE_H

#include "kiln/IO/Error.h"

#include <cstdint>
#include <vector>

namespace kiln::io {

struct QuantizedMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int8_t> codes;     // q, rows*cols, row-major
  std::vector<float> rowScale;   // s, rows
  std::vector<float> colScale;   // t, cols
};

/// Quantizes a row-major f32 matrix into caller-owned buffers (codes:
/// rows*cols, rowScale: rows, colScale: cols). Fails on a non-finite weight or
/// a non-positive size.
Status quantizeQ8_2FInto(const float *weights, int64_t rows, int64_t cols,
                         int8_t *codes, float *rowScale, float *colScale);

/// Same, returning a QuantizedMatrix.
Expected<QuantizedMatrix> quantizeQ8_2F(const float *weights, int64_t rows,
                                        int64_t cols);

/// W' = s ⊙ q ⊙ t, row-major (rows*cols).
std::vector<float> dequantizeQ8_2F(const QuantizedMatrix &matrix);

/// How far a quantized matrix is from the original.
struct QuantizationError {
  double maxAbs = 0;          // max |W - W'|
  /// max over rows of (max_c |W - W'|) / (max_c |W|): the error relative to
  /// the row's largest weight.
  double maxRowRelative = 0;
  /// max over elements of |W - W'| / (s[r]·t[c]/2): <= 1 when the rounding
  /// bound holds.
  double maxBoundRatio = 0;
  double rms = 0;             // root mean square of W - W'
};

QuantizationError measureQuantizationError(const float *weights,
                                           const QuantizedMatrix &matrix);

} // namespace kiln::io

#endif // KILN_IO_QUANTIZE_H
