//===- Rotary.h - Rotary position embedding on (i, i + rd/2) pairs -*- C++ -*-===//
//
// Both families rotate the pairs (i, i + rd/2), i < rd/2, by the angle
// position·θ_i with θ_i = theta^(−2i/rd); dims at or past rd pass through
// (Embryo's partial rotary; Dory rotates all hd dims). The seed's rule:
//   x'_i = x_i cos − x_{i+rd/2} sin,  x'_{i+rd/2} = x_i sin + x_{i+rd/2} cos.
// Angles are formed in double and their cos/sin rounded to f32 once, so a long
// position does not lose the phase to f32 rounding of position·θ_i.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_ROTARY_H
#define KILN_REFERENCE_ROTARY_H

#include <cstddef>

namespace kiln::ref {

/// Rotates x[0 .. rotaryDim) in place for `position`; rotaryDim must be even.
void applyRotary(float *x, size_t rotaryDim, size_t position, double theta);

/// The inverse rotation (x back to its plain form).
void undoRotary(float *x, size_t rotaryDim, size_t position, double theta);

} // namespace kiln::ref

#endif // KILN_REFERENCE_ROTARY_H
