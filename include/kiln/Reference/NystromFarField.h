//===- NystromFarField.h - Dory's O(1) far field ---------------*- C++ -*-===//
//
// Keys that leave the near window are folded into m landmarks per KV head.
// With landmark keys l_a and κ(x, y) = exp(scale · x·y):
//   κ(q, k) ≈ Σ_ab κ(q, l_a) M_ab κ(l_b, k),  M = K⁻¹, K_ab = κ(l_a, l_b),
// so the far keys need only, per landmark b, a running log-scale z_b, the
// mass n_b = Σ_j exp(scale·l_b·k_j − z_b) and the value sum
// θ_b = Σ_j exp(scale·l_b·k_j − z_b) v_j. A query then adds
//   e_a = exp(scale·q·l_a − f) (f the max), u_b = Σ_a e_a M_ab (≥ 0 when
//   rectified), gain_b = u_b · exp(f + z_b − c), mass Σ gain_b n_b,
//   value Σ gain_b θ_b,
// with c = max(near max, max_b f + z_b) the exponent shared with the near
// scores (seed: dory_ofar). If the far mass comes out negative it is ignored,
// as in the seed.
//
// M is formed in double by Gauss-Jordan elimination with partial pivoting on
// K + λI, λ = 1e−6 · max_a K_aa: a ridge that keeps M finite when two
// landmarks coincide (K singular) and changes an invertible K's result by a
// relative 1e−6 at most per unit of its condition number. M is then rounded
// to f32, the precision a plan stores it in.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_NYSTROMFARFIELD_H
#define KILN_REFERENCE_NYSTROMFARFIELD_H

#include <cstddef>
#include <vector>

namespace kiln::ref {

/// The relative ridge added to K's diagonal before inversion.
constexpr double kNystromRidge = 1e-6;

/// Inverse of the (count × count, row-major, double) matrix `a` + ridge·I by
/// Gauss-Jordan with partial pivoting. Returns an empty vector when a pivot is
/// exactly zero (not reachable with a positive ridge).
std::vector<double> invertRegularised(std::vector<double> a, size_t count,
                                      double ridge);

/// The sealed landmarks of one KV head and their kernel inverse.
struct NystromLandmarks {
  size_t count = 0;
  size_t headDim = 0;
  std::vector<float> keys;    // [count][hd]
  std::vector<float> inverse; // M, [count][count]
};

NystromLandmarks sealLandmarks(std::vector<float> keys, size_t count,
                               size_t headDim, float scale);

/// The far keys of one KV head folded into the landmarks.
class FarFieldAccumulator {
public:
  FarFieldAccumulator() = default;
  FarFieldAccumulator(size_t landmarks, size_t headDim);

  /// Folds key k (hd) and value v (hd) in, with a running max per landmark:
  /// when a key scores above z_b, n_b and θ_b are rescaled to the new z_b.
  void push(const NystromLandmarks &landmarks, const float *key,
            const float *value, float scale);

  size_t folded() const { return folded_; }
  const std::vector<float> &logScale() const { return logScale_; }
  const std::vector<float> &mass() const { return mass_; }
  const std::vector<float> &valueSum() const { return valueSum_; }

private:
  size_t landmarks_ = 0, headDim_ = 0, folded_ = 0;
  std::vector<float> logScale_; // z_b, −∞ until the first push
  std::vector<float> mass_;     // n_b
  std::vector<float> valueSum_; // θ_b [m][hd]
};

/// One query head's attention over near keys plus the far field:
/// (near value + far value) / (near mass + far mass), hd values. `landmarks`
/// and `far` may be null (no far field, or nothing folded yet).
std::vector<float> attendNearFar(const float *query,
                                 const std::vector<const float *> &nearKeys,
                                 const std::vector<const float *> &nearValues,
                                 size_t headDim, float scale,
                                 const NystromLandmarks *landmarks,
                                 const FarFieldAccumulator *far, bool rectify);

} // namespace kiln::ref

#endif // KILN_REFERENCE_NYSTROMFARFIELD_H
