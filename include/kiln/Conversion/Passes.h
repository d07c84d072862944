//===- Passes.h - Kiln's conversion passes ----------------------*- C++ -*-===//
#ifndef KILN_CONVERSION_PASSES_H
#define KILN_CONVERSION_PASSES_H

#include "kiln/Conversion/KilnToStage/KilnToStage.h"
#include "kiln/Conversion/StageToGPU/StageToGPU.h"

namespace kiln {
#define GEN_PASS_REGISTRATION
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

#endif // KILN_CONVERSION_PASSES_H
