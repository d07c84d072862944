//===- Activations.h - Element-wise and vector primitives ------*- C++ -*-===//
//
// The notation of MODELS.md as plain functions: rms, unit, silu, sigmoid,
// softplus, log-sum-exp and log_softmax. Everything accumulates in f32, as the
// GPU kernels do, so the reference and a plan can be compared closely.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_ACTIVATIONS_H
#define KILN_REFERENCE_ACTIVATIONS_H

#include <cstddef>
#include <vector>

namespace kiln::ref {

/// σ(x) = 1 / (1 + e^-x).
float sigmoid(float x);
/// silu(x) = x·σ(x).
float silu(float x);
/// softplus(x) = log(1 + e^x), and exactly x past 20 (as the seed's gdn_softplus).
float softplus(float x);

/// Σ a_i b_i over n values, accumulated in f32 in index order.
float dot(const float *a, const float *b, size_t n);

/// rms(x) = x / sqrt(mean(x²) + eps).
std::vector<float> rmsNorm(const float *x, size_t n, float eps);
std::vector<float> rmsNorm(const std::vector<float> &x, float eps);

/// unit(x) = x / sqrt(|x|² + eps).
std::vector<float> unitNorm(const float *x, size_t n, float eps);
std::vector<float> unitNorm(const std::vector<float> &x, float eps);

/// log Σ e^x_i, computed from the maximum. −∞ for n == 0 or all −∞.
float logSumExp(const float *x, size_t n);

/// x_i − logSumExp(x).
std::vector<float> logSoftmax(const std::vector<float> &x);

/// Index of the largest value; the lower index wins an exact tie.
size_t argMax(const std::vector<float> &x);

} // namespace kiln::ref

#endif // KILN_REFERENCE_ACTIVATIONS_H
