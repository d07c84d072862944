//===- Rotary.cpp - Rotary position embedding on (i, i + rd/2) pairs ------===//

#include "kiln/Reference/Rotary.h"

#include <cmath>

namespace kiln::ref {

static void rotate(float *x, size_t rotaryDim, size_t position, double theta,
                   double direction) {
  const size_t half = rotaryDim / 2;
  for (size_t i = 0; i < half; ++i) {
    const double frequency =
        std::pow(theta, -2.0 * static_cast<double>(i) /
                            static_cast<double>(rotaryDim));
    const double angle = direction * static_cast<double>(position) * frequency;
    const float c = static_cast<float>(std::cos(angle));
    const float s = static_cast<float>(std::sin(angle));
    const float a = x[i];
    const float b = x[i + half];
    x[i] = a * c - b * s;
    x[i + half] = a * s + b * c;
  }
}

void applyRotary(float *x, size_t rotaryDim, size_t position, double theta) {
  rotate(x, rotaryDim, position, theta, 1.0);
}

void undoRotary(float *x, size_t rotaryDim, size_t position, double theta) {
  rotate(x, rotaryDim, position, theta, -1.0);
}

} // namespace kiln::ref
