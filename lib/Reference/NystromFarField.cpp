//===- NystromFarField.cpp - Dory's O(1) far field ------------------------===//

#include "kiln/Reference/NystromFarField.h"

#include "kiln/Reference/Activations.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::ref {

std::vector<double> invertRegularised(std::vector<double> a, size_t n,
                                      double ridge) {
  for (size_t i = 0; i < n; ++i)
    a[i * n + i] += ridge;
  std::vector<double> inv(n * n, 0.0);
  for (size_t i = 0; i < n; ++i)
    inv[i * n + i] = 1.0;
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r)
      if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col]))
        pivot = r;
    if (a[pivot * n + col] == 0.0)
      return {};
    if (pivot != col)
      for (size_t c = 0; c < n; ++c) {
        std::swap(a[pivot * n + c], a[col * n + c]);
        std::swap(inv[pivot * n + c], inv[col * n + c]);
      }
    const double scale = 1.0 / a[col * n + col];
    for (size_t c = 0; c < n; ++c) {
      a[col * n + c] *= scale;
      inv[col * n + c] *= scale;
    }
    for (size_t r = 0; r < n; ++r) {
      if (r == col)
        continue;
      const double factor = a[r * n + col];
      if (factor == 0.0)
        continue;
      for (size_t c = 0; c < n; ++c) {
        a[r * n + c] -= factor * a[col * n + c];
        inv[r * n + c] -= factor * inv[col * n + c];
      }
    }
  }
  return inv;
}

NystromLandmarks sealLandmarks(std::vector<float> keys, size_t count,
                               size_t headDim, float scale) {
  NystromLandmarks out;
  out.count = count;
  out.headDim = headDim;
  out.keys = std::move(keys);
  std::vector<double> kernel(count * count);
  double largestDiagonal = 0.0;
  for (size_t a = 0; a < count; ++a)
    for (size_t b = 0; b < count; ++b) {
      double product = 0.0;
      for (size_t d = 0; d < headDim; ++d)
        product += static_cast<double>(out.keys[a * headDim + d]) *
                   static_cast<double>(out.keys[b * headDim + d]);
      kernel[a * count + b] = std::exp(static_cast<double>(scale) * product);
      if (a == b)
        largestDiagonal = std::max(largestDiagonal, kernel[a * count + b]);
    }
  const std::vector<double> inverse =
      invertRegularised(kernel, count, kNystromRidge * largestDiagonal);
  out.inverse.assign(inverse.begin(), inverse.end());
  return out;
}

FarFieldAccumulator::FarFieldAccumulator(size_t landmarks, size_t headDim)
    : landmarks_(landmarks), headDim_(headDim),
      logScale_(landmarks, -std::numeric_limits<float>::infinity()),
      mass_(landmarks, 0.0f), valueSum_(landmarks * headDim, 0.0f) {}

void FarFieldAccumulator::push(const NystromLandmarks &landmarks,
                               const float *key, const float *value,
                               float scale) {
  for (size_t b = 0; b < landmarks_; ++b) {
    const float score =
        dot(landmarks.keys.data() + b * headDim_, key, headDim_) * scale;
    float *theta = valueSum_.data() + b * headDim_;
    if (score > logScale_[b]) {
      // A new maximum: bring what is held to the new scale (exp(−∞) = 0 on
      // the first push).
      const float rescale = std::exp(logScale_[b] - score);
      mass_[b] *= rescale;
      for (size_t d = 0; d < headDim_; ++d)
        theta[d] *= rescale;
      logScale_[b] = score;
    }
    const float weight = std::exp(score - logScale_[b]);
    mass_[b] += weight;
    for (size_t d = 0; d < headDim_; ++d)
      theta[d] += weight * value[d];
  }
  ++folded_;
}

std::vector<float> attendNearFar(const float *query,
                                 const std::vector<const float *> &nearKeys,
                                 const std::vector<const float *> &nearValues,
                                 size_t headDim, float scale,
                                 const NystromLandmarks *landmarks,
                                 const FarFieldAccumulator *far, bool rectify) {
  std::vector<float> scores(nearKeys.size());
  float exponent = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < nearKeys.size(); ++i) {
    scores[i] = dot(query, nearKeys[i], headDim) * scale;
    exponent = std::max(exponent, scores[i]);
  }

  // The far part (seed: dory_ofar), only once something has been folded.
  const bool farPresent =
      landmarks && far && far->folded() > 0 && landmarks->count > 0;
  std::vector<float> gains;
  float farMass = 0.0f;
  bool useFar = false;
  if (farPresent) {
    const size_t m = landmarks->count;
    std::vector<float> landmarkScores(m);
    float f = -std::numeric_limits<float>::infinity();
    for (size_t a = 0; a < m; ++a) {
      landmarkScores[a] =
          dot(landmarks->keys.data() + a * headDim, query, headDim) * scale;
      f = std::max(f, landmarkScores[a]);
    }
    std::vector<float> u(m, 0.0f);
    for (size_t a = 0; a < m; ++a) {
      const float e = std::exp(landmarkScores[a] - f);
      for (size_t b = 0; b < m; ++b)
        u[b] += e * landmarks->inverse[a * m + b];
    }
    if (rectify)
      for (float &value : u)
        value = std::max(value, 0.0f);
    const std::vector<float> &z = far->logScale();
    for (size_t b = 0; b < m; ++b)
      exponent = std::max(exponent, f + z[b]);
    gains.resize(m);
    for (size_t b = 0; b < m; ++b) {
      gains[b] = u[b] * std::exp(f + z[b] - exponent);
      farMass += gains[b] * far->mass()[b];
    }
    useFar = farMass >= 0.0f;
    if (!useFar)
      farMass = 0.0f;
  }

  std::vector<float> out(headDim, 0.0f);
  float nearMass = 0.0f;
  for (size_t i = 0; i < nearKeys.size(); ++i) {
    const float weight = std::exp(scores[i] - exponent);
    nearMass += weight;
    for (size_t d = 0; d < headDim; ++d)
      out[d] += weight * nearValues[i][d];
  }
  if (useFar)
    for (size_t b = 0; b < gains.size(); ++b)
      for (size_t d = 0; d < headDim; ++d)
        out[d] += gains[b] * far->valueSum()[b * headDim + d];
  const float inverse = 1.0f / std::max(nearMass + farMass, 1e-30f);
  for (float &value : out)
    value *= inverse;
  return out;
}

} // namespace kiln::ref
