// libFuzzer target (issue 12): arbitrary bytes opened as a safetensors file (the header's
// JSON, offsets, dtypes and shapes are untrusted), through an in-memory file so no disk
// is touched. Every input must give a file or an error: no crash, no sanitizer finding.
// Built with KILN_BUILD_FUZZERS (Clang); scripts/test.sh runs it from synthesized weights.
#include "kiln/IO/Safetensors.h"

#include <cstdint>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memfd_create("safetensors-fuzz", 0);
  if (fd < 0)
    return 0;
  size_t written = 0;
  while (written < size) {
    ssize_t n = write(fd, data + written, size - written);
    if (n <= 0)
      break;
    written += static_cast<size_t>(n);
  }
  if (written == size) {
    auto file = kiln::io::SafetensorsFile::open("/proc/self/fd/" + std::to_string(fd));
    // A file that opens must keep every tensor inside it: touch each one's first and
    // last byte (AddressSanitizer sees a read past the mapping).
    volatile uint8_t sink = 0;
    if (file)
      for (const auto &tensor : file->tensors())
        if (tensor.byteSize) {
          const auto *bytes = static_cast<const uint8_t *>(tensor.data);
          sink = sink ^ bytes[0] ^ bytes[tensor.byteSize - 1];
        }
  }
  close(fd);
  return 0;
}
