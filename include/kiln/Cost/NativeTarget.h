//===- NativeTarget.h - The shipped descriptor for a local device -*- C++ -*-===//
//
// `kiln-compile --cost-target native` compiles for the machine at hand, as
// -march=native does: the devices the Vulkan loader lists are matched against
// the descriptors shipped in targets/ (a GPU before a CPU device).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COST_NATIVETARGET_H
#define KILN_COST_NATIVETARGET_H

#include "kiln/IO/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::cost {

/// The shipped descriptor name (targets/NAME.json) for a device name as the
/// driver reports it, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)" -> "lavapipe".
std::optional<std::string> shippedTargetForDevice(const std::string &deviceName);

/// The descriptor for the first listed device that has one, GPUs before CPU
/// devices; `devices` are (name, isCpu) pairs. An error names every device
/// when none has a shipped descriptor (calibrate it: bench/calibrate).
io::Expected<std::string>
nativeTargetName(const std::vector<std::pair<std::string, bool>> &devices);

} // namespace kiln::cost

#endif // KILN_COST_NATIVETARGET_H
