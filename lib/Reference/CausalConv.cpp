//===- CausalConv.cpp - Depthwise causal convolution over a ring ----------===//

#include "kiln/Reference/CausalConv.h"

#include <algorithm>
#include <cassert>

namespace kiln::ref {

CausalConvRing::CausalConvRing(size_t channels, size_t taps)
    : channels_(channels), taps_(taps),
      ring_(taps > 0 ? (taps - 1) * channels : 0, 0.0f) {}

std::vector<float> CausalConvRing::step(const std::vector<float> &input,
                                        const std::vector<float> &taps) {
  assert(input.size() == channels_ && taps.size() == channels_ * taps_);
  std::vector<float> out(channels_);
  const size_t slots = taps_ - 1;
  for (size_t ch = 0; ch < channels_; ++ch) {
    const float *tap = taps.data() + ch * taps_;
    float acc = input[ch] * tap[taps_ - 1];
    for (size_t j = 0; j < slots; ++j)
      acc += ring_[j * channels_ + ch] * tap[j];
    out[ch] = acc;
  }
  // Shift: the oldest input leaves, the current one becomes the newest.
  if (slots > 0) {
    std::copy(ring_.begin() + channels_, ring_.end(), ring_.begin());
    std::copy(input.begin(), input.end(),
              ring_.begin() + (slots - 1) * channels_);
  }
  return out;
}

void CausalConvRing::reset() { std::fill(ring_.begin(), ring_.end(), 0.0f); }

} // namespace kiln::ref
