//===- AnchorAttention.cpp - Bounded attention over a ring plus sinks -----===//

#include "kiln/Reference/AnchorAttention.h"

#include "kiln/Reference/Activations.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace kiln::ref {

std::vector<float> flooredSoftmax(const std::vector<float> &scores) {
  float largest = -std::numeric_limits<float>::infinity();
  for (float s : scores)
    largest = std::max(largest, s);
  std::vector<float> weights(scores.size(), 0.0f);
  float sum = 0.0f;
  for (size_t i = 0; i < scores.size(); ++i) {
    const float shifted = scores[i] - largest;
    if (shifted >= kAttentionWeightFloor) {
      weights[i] = std::exp(shifted);
      sum += weights[i];
    }
  }
  for (float &w : weights)
    w /= sum;
  return weights;
}

AnchorKvRing::AnchorKvRing(size_t kvHeads, size_t window, size_t headDim)
    : kvHeads_(kvHeads), window_(window), headDim_(headDim),
      keys_(kvHeads * window * headDim, 0.0f),
      values_(kvHeads * window * headDim, 0.0f) {}

void AnchorKvRing::write(size_t position, const float *keys,
                         const float *values) {
  const size_t slot = position % window_;
  for (size_t kh = 0; kh < kvHeads_; ++kh) {
    std::copy(keys + kh * headDim_, keys + (kh + 1) * headDim_,
              keys_.begin() + (kh * window_ + slot) * headDim_);
    std::copy(values + kh * headDim_, values + (kh + 1) * headDim_,
              values_.begin() + (kh * window_ + slot) * headDim_);
  }
}

const float *AnchorKvRing::key(size_t kvHead, size_t position) const {
  return keys_.data() + (kvHead * window_ + position % window_) * headDim_;
}

const float *AnchorKvRing::value(size_t kvHead, size_t position) const {
  return values_.data() + (kvHead * window_ + position % window_) * headDim_;
}

void AnchorKvRing::reset() {
  std::fill(keys_.begin(), keys_.end(), 0.0f);
  std::fill(values_.begin(), values_.end(), 0.0f);
}

std::vector<float> anchorAttend(const AnchorShape &shape,
                                const AnchorKvRing &ring,
                                const std::vector<float> &sinkKeys,
                                const std::vector<float> &sinkValues,
                                const float *rotatedQuery,
                                const float *plainQuery, size_t position) {
  const size_t hd = shape.headDim;
  const size_t groupSize = shape.queryHeads / shape.kvHeads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  std::vector<float> out(shape.queryHeads * hd, 0.0f);
  for (size_t hq = 0; hq < shape.queryHeads; ++hq) {
    const size_t kh = hq / groupSize;
    const size_t window = shape.groupWindows.empty() ? shape.window
                                                     : shape.groupWindows[kh];
    assert(window <= shape.window);
    const size_t recent = std::min(position + 1, window);
    // Value rows in the same order as the scores: sinks, then newest first.
    std::vector<const float *> values;
    std::vector<float> scores;
    for (size_t s = 0; s < shape.sinks; ++s) {
      const size_t at = (kh * shape.sinks + s) * hd;
      scores.push_back(dot(plainQuery + hq * hd, sinkKeys.data() + at, hd) *
                       scale);
      values.push_back(sinkValues.data() + at);
    }
    for (size_t back = 0; back < recent; ++back) {
      const size_t keyPosition = position - back;
      scores.push_back(
          dot(rotatedQuery + hq * hd, ring.key(kh, keyPosition), hd) * scale);
      values.push_back(ring.value(kh, keyPosition));
    }
    const std::vector<float> weights = flooredSoftmax(scores);
    float *o = out.data() + hq * hd;
    for (size_t u = 0; u < weights.size(); ++u) {
      if (weights[u] == 0.0f)
        continue;
      for (size_t d = 0; d < hd; ++d)
        o[d] += weights[u] * values[u][d];
    }
  }
  return out;
}

} // namespace kiln::ref
