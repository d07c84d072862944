//===- SwiGLU.cpp - Embryo's gated FFN ------------------------------------===//

#include "kiln/Reference/SwiGLU.h"

#include "kiln/Reference/Activations.h"

namespace kiln::ref {

std::vector<float> swiGlu(const SwiGluWeights &w, const std::vector<float> &x) {
  std::vector<float> gate = matVec(w.gate, x);
  const std::vector<float> up = matVec(w.up, x);
  for (size_t i = 0; i < gate.size(); ++i)
    gate[i] = silu(gate[i]) * up[i];
  return matVec(w.down, gate);
}

} // namespace kiln::ref
