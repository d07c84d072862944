//===- LoopMix.h - Dory's slerp residual and loop edges --------*- C++ -*-===//
//
// The nGPT residual h ← unit(ĥ + α ⊙ (ô − ĥ)) with ĥ = unit(h), ô = unit(o);
// and dory_mix's five modes on a row's (h, in, st):
//   0 enter the first pass:      in = st = h, h = unit(h + h)
//   1 between passes:            st = unit(h), h = unit(st + in)
//   2 leave the last pass:       h = unit(h)
//   3 early-exit read-out:       h = st = unit(h)
//   4 next pass from kept state: h = unit(st + in)
// Mode 3 followed by mode 4 is mode 1 (tested). Norms use the config eps.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_LOOPMIX_H
#define KILN_REFERENCE_LOOPMIX_H

#include <vector>

namespace kiln::ref {

/// h ← unit(unit(h) + α ⊙ (unit(o) − unit(h))).
void slerpResidual(std::vector<float> &h, const std::vector<float> &o,
                   const std::vector<float> &alpha, float eps);

enum class LoopMixMode { Enter = 0, Between = 1, Leave = 2, ReadOut = 3,
                         Resume = 4 };

/// The persistent vectors of one row across the loop.
struct LoopRowState {
  std::vector<float> input; // `in`: the embedding as it entered
  std::vector<float> kept;  // `st`
};

void applyLoopMix(LoopMixMode mode, std::vector<float> &h, LoopRowState &row,
                  float eps);

} // namespace kiln::ref

#endif // KILN_REFERENCE_LOOPMIX_H
