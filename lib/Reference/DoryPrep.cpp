//===- DoryPrep.cpp - Dory's query and key preparation --------------------===//

#include "kiln/Reference/DoryPrep.h"

#include "kiln/Reference/Activations.h"
#include "kiln/Reference/Rotary.h"

namespace kiln::ref {

std::vector<float> doryPrepQuery(const float *q, const float *scaleQk,
                                 size_t headDim, size_t position, double theta,
                                 float eps) {
  std::vector<float> rotated(q, q + headDim);
  applyRotary(rotated.data(), headDim, position, theta);
  std::vector<float> out = unitNorm(rotated, eps);
  for (size_t i = 0; i < headDim; ++i)
    out[i] *= scaleQk[i];
  return out;
}

std::vector<float> doryPrepKey(const float *k, size_t headDim, size_t position,
                               double theta, float eps) {
  std::vector<float> rotated(k, k + headDim);
  applyRotary(rotated.data(), headDim, position, theta);
  return unitNorm(rotated, eps);
}

} // namespace kiln::ref
