//===- Activations.cpp - Element-wise and vector primitives ---------------===//

#include "kiln/Reference/Activations.h"

#include <cmath>
#include <limits>

namespace kiln::ref {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

float silu(float x) { return x * sigmoid(x); }

float softplus(float x) {
  // Past 20, log(1 + e^x) equals x in f32; the seed switches there too.
  if (x > 20.0f)
    return x;
  return std::log(1.0f + std::exp(x));
}

float dot(const float *a, const float *b, size_t n) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i)
    sum += a[i] * b[i];
  return sum;
}

std::vector<float> rmsNorm(const float *x, size_t n, float eps) {
  const float meanSquare = dot(x, x, n) / static_cast<float>(n);
  const float inverse = 1.0f / std::sqrt(meanSquare + eps);
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = x[i] * inverse;
  return out;
}

std::vector<float> rmsNorm(const std::vector<float> &x, float eps) {
  return rmsNorm(x.data(), x.size(), eps);
}

std::vector<float> unitNorm(const float *x, size_t n, float eps) {
  const float inverse = 1.0f / std::sqrt(dot(x, x, n) + eps);
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = x[i] * inverse;
  return out;
}

std::vector<float> unitNorm(const std::vector<float> &x, float eps) {
  return unitNorm(x.data(), x.size(), eps);
}

float logSumExp(const float *x, size_t n) {
  float largest = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < n; ++i)
    largest = std::fmax(largest, x[i]);
  if (std::isinf(largest) && largest < 0.0f)
    return largest;
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i)
    sum += std::exp(x[i] - largest);
  return largest + std::log(sum);
}

std::vector<float> logSoftmax(const std::vector<float> &x) {
  const float normaliser = logSumExp(x.data(), x.size());
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    out[i] = x[i] - normaliser;
  return out;
}

size_t argMax(const std::vector<float> &x) {
  size_t best = 0;
  for (size_t i = 1; i < x.size(); ++i)
    if (x[i] > x[best])
      best = i;
  return best;
}

} // namespace kiln::ref
