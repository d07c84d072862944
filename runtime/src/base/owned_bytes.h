// OwnedBytes: a plan's flatbuffer in memory the runtime alone owns, read from a file or
// copied from caller bytes. The bytes the verifier checks are the bytes every later call
// reads: a mapping of the file would let another process patch it in place after
// verification (issue 12: a ParamField offset set to 1 GiB then wrote out of bounds).
#ifndef KILN_RUNTIME_BASE_OWNED_BYTES_H
#define KILN_RUNTIME_BASE_OWNED_BYTES_H

#include "base/status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::rt {

class OwnedBytes {
public:
  /// Reads the whole of `path`, at most `maxBytes` (errors name the path: "'x.kplan': not
  /// found", "... changed while being read").
  static Status readFile(const std::string &path, uint64_t maxBytes,
                         std::unique_ptr<OwnedBytes> &out);
  /// Copies `size` bytes.
  static Status copyMemory(const void *data, size_t size, std::unique_ptr<OwnedBytes> &out);

  OwnedBytes(const OwnedBytes &) = delete;
  OwnedBytes &operator=(const OwnedBytes &) = delete;

  /// 8-byte aligned, as flatbuffers wants.
  const uint8_t *data() const { return reinterpret_cast<const uint8_t *>(words_.data()); }
  size_t size() const { return size_; }

private:
  OwnedBytes() = default;
  static Status allocate(size_t size, std::unique_ptr<OwnedBytes> &out);

  std::vector<uint64_t> words_;
  size_t size_ = 0;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_BASE_OWNED_BYTES_H
