//===- ScaledMlp.h - Dory's scaled SwiGLU MLP ------------------*- C++ -*-===//
//
// m = D · (silu((G x) ⊙ s_u) ⊙ ((U x) ⊙ s_v)), as dory_silu.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_SCALEDMLP_H
#define KILN_REFERENCE_SCALEDMLP_H

#include "kiln/Reference/Matrix.h"

#include <vector>

namespace kiln::ref {

struct ScaledMlpWeights {
  Matrix gate, up, down;
  std::vector<float> scaleGate; // s_u [I]
  std::vector<float> scaleUp;   // s_v [I]
};

std::vector<float> scaledMlp(const ScaledMlpWeights &w,
                             const std::vector<float> &x);

} // namespace kiln::ref

#endif // KILN_REFERENCE_SCALEDMLP_H
