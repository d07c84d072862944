// FileMapping: a whole file mapped read-only (or a private copy of caller bytes), so a
// plan's flatbuffer is read in place and never copied twice.
#ifndef KILN_RUNTIME_BASE_FILE_MAPPING_H
#define KILN_RUNTIME_BASE_FILE_MAPPING_H

#include "base/status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::rt {

class FileMapping {
public:
  /// Maps `path`; errors name the path ("plan file 'x.kplan': not found").
  static Status mapFile(const std::string &path, std::unique_ptr<FileMapping> &out);
  /// Copies `size` bytes, aligned for flatbuffers.
  static Status copyMemory(const void *data, size_t size, std::unique_ptr<FileMapping> &out);

  ~FileMapping();
  FileMapping(const FileMapping &) = delete;
  FileMapping &operator=(const FileMapping &) = delete;

  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }

private:
  FileMapping() = default;
  const uint8_t *data_ = nullptr;
  size_t size_ = 0;
  void *mapped_ = nullptr;     // mmap base, or null
  std::vector<uint64_t> copy_; // 8-byte aligned private copy
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_BASE_FILE_MAPPING_H
