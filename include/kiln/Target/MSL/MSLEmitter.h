//===- MSLEmitter.h - SPIR-V words to Metal Shading Language ----*- C++ -*-===//
//
// Takes SPIR-V words, not IR: this library links SPIRV-Cross only.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_MSL_MSLEMITTER_H
#define KILN_TARGET_MSL_MSLEMITTER_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

struct MSLOptions {
  int majorVersion = 2;
  int minorVersion = 3;
};

struct MSLKernel {
  std::string entryPoint;
  std::string source;
  /// The threadgroup size, read back from the module's LocalSize.
  std::array<uint32_t, 3> threadgroupSize = {1, 1, 1};
};

/// Either a kernel or an error message naming what SPIRV-Cross refused.
struct MSLResult {
  bool ok = false;
  MSLKernel kernel;
  std::string error;
};

MSLResult emitMSL(const std::vector<uint32_t> &spirvWords,
                  const MSLOptions &options = {});

} // namespace kiln

#endif // KILN_TARGET_MSL_MSLEMITTER_H
