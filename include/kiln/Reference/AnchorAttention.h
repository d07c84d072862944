//===- AnchorAttention.h - Bounded attention over a ring plus sinks -*- C++ -*-===//
//
// Embryo's anchor mixer after its projections (MODELS.md, Anchor mixer):
// query head hq reads KV head hq / (qh/kvh): first the ns sink keys, which have
// no position and so score against the UN-rotated query, then the last
// min(t+1, W_kh) ring keys, newest first. Score = q·k / sqrt(hd). The softmax
// drops every key whose score is more than 16 below the head's maximum from both
// the value sum and the normaliser (the seed keeps a key when score − max ≥ −16).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_ANCHORATTENTION_H
#define KILN_REFERENCE_ANCHORATTENTION_H

#include <cstddef>
#include <vector>

namespace kiln::ref {

/// A key with score − max below this is dropped.
constexpr float kAttentionWeightFloor = -16.0f;

/// Softmax with the e^−16 floor: weights sum to 1 over the kept keys, and a
/// dropped key's weight is exactly 0.
std::vector<float> flooredSoftmax(const std::vector<float> &scores);

struct AnchorShape {
  size_t queryHeads = 0;
  size_t kvHeads = 0;
  size_t headDim = 0;
  size_t window = 0;               // ring slots W
  size_t sinks = 0;                // ns per KV head
  std::vector<size_t> groupWindows; // W_kh per KV head, each ≤ W
};

/// The rotated keys and values of the last W positions: slot = position mod W.
class AnchorKvRing {
public:
  AnchorKvRing() = default;
  AnchorKvRing(size_t kvHeads, size_t window, size_t headDim);

  /// Stores one position's keys and values ([kvh][hd] each).
  void write(size_t position, const float *keys, const float *values);
  const float *key(size_t kvHead, size_t position) const;
  const float *value(size_t kvHead, size_t position) const;
  void reset();

private:
  size_t kvHeads_ = 0, window_ = 0, headDim_ = 0;
  std::vector<float> keys_, values_; // [kvh][W][hd]
};

/// o (qh·hd) for the query of `position`. `rotatedQuery` and `plainQuery` are
/// [qh][hd]; `sinkKeys`, `sinkValues` are [kvh][ns][hd]. The ring must already
/// hold this position's key and value.
std::vector<float> anchorAttend(const AnchorShape &shape,
                                const AnchorKvRing &ring,
                                const std::vector<float> &sinkKeys,
                                const std::vector<float> &sinkValues,
                                const float *rotatedQuery,
                                const float *plainQuery, size_t position);

} // namespace kiln::ref

#endif // KILN_REFERENCE_ANCHORATTENTION_H
