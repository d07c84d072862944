//===- ScaledMlp.cpp - Dory's scaled SwiGLU MLP ---------------------------===//

#include "kiln/Reference/ScaledMlp.h"

#include "kiln/Reference/Activations.h"

namespace kiln::ref {

std::vector<float> scaledMlp(const ScaledMlpWeights &w,
                             const std::vector<float> &x) {
  std::vector<float> gate = matVec(w.gate, x);
  const std::vector<float> up = matVec(w.up, x);
  for (size_t i = 0; i < gate.size(); ++i)
    gate[i] = silu(gate[i] * w.scaleGate[i]) * (up[i] * w.scaleUp[i]);
  return matVec(w.down, gate);
}

} // namespace kiln::ref
