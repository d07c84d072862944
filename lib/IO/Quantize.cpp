//===- Quantize.cpp - Fit and measure q8_2f matrices ----------------------===//
#include "kiln/IO/Quantize.h"

#include <algorithm>
#include <cmath>

namespace kiln::io {

Status quantizeQ8_2FInto(const float *weights, int64_t rows, int64_t cols,
                         int8_t *codes, float *rowScale, float *colScale) {
  if (rows <= 0 || cols <= 0)
    return Error("q8_2f: matrix shape [" + std::to_string(rows) + ", " +
                 std::to_string(cols) + "] must be positive");
  // Column scale: the square root of the column's largest magnitude.
  std::vector<float> columnMax(static_cast<size_t>(cols), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = weights + r * cols;
    for (int64_t c = 0; c < cols; ++c) {
      float magnitude = std::fabs(row[c]);
      if (!std::isfinite(row[c]))
        return Error("q8_2f: weight [" + std::to_string(r) + "][" +
                     std::to_string(c) + "] is not finite");
      columnMax[c] = std::max(columnMax[c], magnitude);
    }
  }
  for (int64_t c = 0; c < cols; ++c)
    colScale[c] = columnMax[c] > 0.0f ? std::sqrt(columnMax[c]) : 1.0f;

  // Row scale: what is left of the row's range after the column scale, over
  // the 127 codes; then the codes themselves.
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = weights + r * cols;
    float rowMax = 0.0f;
    for (int64_t c = 0; c < cols; ++c)
      rowMax = std::max(rowMax, std::fabs(row[c] / colScale[c]));
    float scale = rowMax > 0.0f ? rowMax / 127.0f : 1.0f;
    rowScale[r] = scale;
    int8_t *rowCodes = codes + r * cols;
    for (int64_t c = 0; c < cols; ++c) {
      float code = std::round(row[c] / (scale * colScale[c]));
      rowCodes[c] = static_cast<int8_t>(std::clamp(code, -127.0f, 127.0f));
    }
  }
  return Status::success();
}

Expected<QuantizedMatrix> quantizeQ8_2F(const float *weights, int64_t rows,
                                        int64_t cols) {
  QuantizedMatrix matrix;
  if (rows > 0 && cols > 0) {
    matrix.rows = rows;
    matrix.cols = cols;
    matrix.codes.resize(static_cast<size_t>(rows * cols));
    matrix.rowScale.resize(static_cast<size_t>(rows));
    matrix.colScale.resize(static_cast<size_t>(cols));
  }
  if (Status status =
          quantizeQ8_2FInto(weights, rows, cols, matrix.codes.data(),
                            matrix.rowScale.data(), matrix.colScale.data());
      !status)
    return status.error();
  return matrix;
}

std::vector<float> dequantizeQ8_2F(const QuantizedMatrix &matrix) {
  std::vector<float> weights(static_cast<size_t>(matrix.rows * matrix.cols));
  for (int64_t r = 0; r < matrix.rows; ++r)
    for (int64_t c = 0; c < matrix.cols; ++c)
      weights[r * matrix.cols + c] = matrix.rowScale[r] *
                                     static_cast<float>(matrix.codes[r * matrix.cols + c]) *
                                     matrix.colScale[c];
  return weights;
}

QuantizationError measureQuantizationError(const float *weights,
                                           const QuantizedMatrix &matrix) {
  QuantizationError error;
  std::vector<float> restored = dequantizeQ8_2F(matrix);
  double sumSquares = 0.0;
  for (int64_t r = 0; r < matrix.rows; ++r) {
    double rowError = 0.0, rowMax = 0.0;
    for (int64_t c = 0; c < matrix.cols; ++c) {
      size_t index = static_cast<size_t>(r * matrix.cols + c);
      double difference =
          std::fabs(static_cast<double>(weights[index]) - restored[index]);
      rowError = std::max(rowError, difference);
      rowMax = std::max(rowMax, std::fabs(static_cast<double>(weights[index])));
      sumSquares += difference * difference;
      double bound = 0.5 * static_cast<double>(matrix.rowScale[r]) *
                     static_cast<double>(matrix.colScale[c]);
      if (bound > 0)
        error.maxBoundRatio = std::max(error.maxBoundRatio, difference / bound);
    }
    error.maxAbs = std::max(error.maxAbs, rowError);
    if (rowMax > 0)
      error.maxRowRelative = std::max(error.maxRowRelative, rowError / rowMax);
  }
  if (!restored.empty())
    error.rms = std::sqrt(sumSquares / static_cast<double>(restored.size()));
  return error;
}

} // namespace kiln::io
