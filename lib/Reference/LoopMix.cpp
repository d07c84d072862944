//===- LoopMix.cpp - Dory's slerp residual and loop edges -----------------===//

#include "kiln/Reference/LoopMix.h"

#include "kiln/Reference/Activations.h"

namespace kiln::ref {

void slerpResidual(std::vector<float> &h, const std::vector<float> &o,
                   const std::vector<float> &alpha, float eps) {
  const std::vector<float> hUnit = unitNorm(h, eps);
  const std::vector<float> oUnit = unitNorm(o, eps);
  std::vector<float> step(h.size());
  for (size_t i = 0; i < h.size(); ++i)
    step[i] = hUnit[i] + alpha[i] * (oUnit[i] - hUnit[i]);
  h = unitNorm(step, eps);
}

static std::vector<float> sum(const std::vector<float> &a,
                              const std::vector<float> &b) {
  std::vector<float> out(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    out[i] = a[i] + b[i];
  return out;
}

void applyLoopMix(LoopMixMode mode, std::vector<float> &h, LoopRowState &row,
                  float eps) {
  switch (mode) {
  case LoopMixMode::Enter:
    row.input = h;
    row.kept = h;
    // The seed normalises h + h, not h: the same direction, a different eps.
    h = unitNorm(sum(h, h), eps);
    return;
  case LoopMixMode::Between:
    row.kept = unitNorm(h, eps);
    h = unitNorm(sum(row.kept, row.input), eps);
    return;
  case LoopMixMode::Leave:
    h = unitNorm(h, eps);
    return;
  case LoopMixMode::ReadOut:
    h = unitNorm(h, eps);
    row.kept = h;
    return;
  case LoopMixMode::Resume:
    h = unitNorm(sum(row.kept, row.input), eps);
    return;
  }
}

} // namespace kiln::ref
