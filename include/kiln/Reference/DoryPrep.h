//===- DoryPrep.h - Dory's query and key preparation -----------*- C++ -*-===//
//
// MODELS.md, Dory Prep: full rotary on pairs (i, i + hd/2), then
// q ← unit(q) ⊙ s_qk (the head's scale vector) and k ← unit(k). Values pass
// unchanged. Done per head on hd values.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_DORYPREP_H
#define KILN_REFERENCE_DORYPREP_H

#include <cstddef>
#include <vector>

namespace kiln::ref {

std::vector<float> doryPrepQuery(const float *q, const float *scaleQk,
                                 size_t headDim, size_t position, double theta,
                                 float eps);

std::vector<float> doryPrepKey(const float *k, size_t headDim, size_t position,
                               double theta, float eps);

} // namespace kiln::ref

#endif // KILN_REFERENCE_DORYPREP_H
