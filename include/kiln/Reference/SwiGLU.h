//===- SwiGLU.h - Embryo's gated FFN ----------------------------*- C++ -*-===//
//
// f = D·(silu(G x) ⊙ (U x)): the shared FFN, and each routed expert.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_SWIGLU_H
#define KILN_REFERENCE_SWIGLU_H

#include "kiln/Reference/Matrix.h"

#include <vector>

namespace kiln::ref {

struct SwiGluWeights {
  Matrix gate; // [I, H]
  Matrix up;   // [I, H]
  Matrix down; // [H, I]
};

std::vector<float> swiGlu(const SwiGluWeights &w, const std::vector<float> &x);

} // namespace kiln::ref

#endif // KILN_REFERENCE_SWIGLU_H
