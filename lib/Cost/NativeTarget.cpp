//===- NativeTarget.cpp - The shipped descriptor for a local device -------===//
#include "kiln/Cost/NativeTarget.h"

namespace kiln::cost {

std::optional<std::string> shippedTargetForDevice(const std::string &deviceName) {
  // A substring of the driver's name for each shipped descriptor.
  static const std::pair<const char *, const char *> kKnown[] = {
      {"llvmpipe", "lavapipe"},
      {"H200", "h200"},
      {"RTX 2000 Ada", "rtx-2000-ada"},
      {"Apple M4", "apple-m4"},
  };
  for (const auto &[pattern, target] : kKnown)
    if (deviceName.find(pattern) != std::string::npos)
      return std::string(target);
  return std::nullopt;
}

io::Expected<std::string>
nativeTargetName(const std::vector<std::pair<std::string, bool>> &devices) {
  for (bool cpu : {false, true})
    for (const auto &[name, isCpu] : devices)
      if (isCpu == cpu)
        if (std::optional<std::string> target = shippedTargetForDevice(name))
          return *target;
  if (devices.empty())
    return io::Error("--cost-target native: no Vulkan device found");
  std::string names;
  for (const auto &device : devices)
    names += (names.empty() ? "'" : ", '") + device.first + "'";
  return io::Error("--cost-target native: no shipped target describes " + names +
                   "; measure the device (bash bench/calibrate/run.sh build my-gpu.json) and "
                   "pass --target-file my-gpu.json");
}

} // namespace kiln::cost
