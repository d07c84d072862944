// libFuzzer target (issue 12): arbitrary text parsed as a model config, the parser the
// tools share (kiln-compile, kiln-synth, kiln-ref, kiln-run --check-reference). A config
// that parses must round-trip through toJson, and its weight list and byte counts (what
// kiln-synth and the reference allocate from) must come out without overflow or abort.
// Built with KILN_BUILD_FUZZERS (Clang); scripts/test.sh runs it from examples/.
#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/WeightSpec.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  auto config = kiln::io::parseModelConfig(text);
  if (!config)
    return 0;
  auto again = kiln::io::parseModelConfig(kiln::io::toJson(*config));
  if (!again || kiln::io::toJson(*again) != kiln::io::toJson(*config))
    std::abort(); // a config must read back as itself
  (void)kiln::io::parameterCount(*config);
  (void)kiln::io::weightBytes(*config, kiln::io::WeightFormat::Q8_2F);
  (void)kiln::io::expectedTensors(*config, kiln::io::WeightFormat::F16);
  return 0;
}
