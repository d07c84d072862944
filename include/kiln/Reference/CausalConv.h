//===- CausalConv.h - Depthwise causal convolution over a ring -*- C++ -*-===//
//
// GDN's short convolution: each channel keeps its last kk−1 inputs in a ring
// (ring[0] oldest). y = c·tap[kk−1] + Σ_{j<kk−1} ring[j]·tap[j]; then the ring
// shifts and c becomes the newest entry. A fresh ring holds zeros, so the
// first token sees only itself.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_CAUSALCONV_H
#define KILN_REFERENCE_CAUSALCONV_H

#include <cstddef>
#include <vector>

namespace kiln::ref {

class CausalConvRing {
public:
  CausalConvRing() = default;
  CausalConvRing(size_t channels, size_t taps);

  /// One token: `input` holds `channels` values, `taps` is [channels][taps]
  /// (row per channel, tap kk−1 multiplies the newest input). Returns y (before
  /// any activation) and advances the ring.
  std::vector<float> step(const std::vector<float> &input,
                          const std::vector<float> &taps);

  void reset();

  size_t channels() const { return channels_; }
  size_t taps() const { return taps_; }

private:
  size_t channels_ = 0;
  size_t taps_ = 0;
  std::vector<float> ring_; // [taps−1][channels], slot 0 oldest
};

} // namespace kiln::ref

#endif // KILN_REFERENCE_CAUSALCONV_H
