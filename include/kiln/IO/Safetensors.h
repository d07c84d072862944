//===- Safetensors.h - safetensors reader and writer -----------*- C++ -*-===//
//
// SafetensorsFile maps a file read-only and checks its header before handing
// out any pointer: header length, JSON, dtypes, shapes against byte sizes,
// data ranges inside the file, ranges ordered and non-overlapping. Past
// open(), every TensorView is safe to read.
//
// SafetensorsWriter collects tensor declarations and writes the file in one
// pass to a temporary file in the target folder, renamed on success, so a
// failure never leaves a half-written output. Tensor bytes may be supplied
// lazily (a filler called at write time, one tensor in memory at a time), so
// a 2 GB model never needs two copies in RAM.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IO_SAFETENSORS_H
#define KILN_IO_SAFETENSORS_H

#include "kiln/IO/Error.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::io {

enum class DType { F32, F16, I8 };

const char *dtypeName(DType dtype); // "F32" | "F16" | "I8"
size_t dtypeSize(DType dtype);      // bytes per element
Expected<DType> parseDType(const std::string &text);

/// Elements in a shape (1 for a scalar); -1 on overflow or a negative dim.
int64_t shapeElementCount(const std::vector<int64_t> &shape);
/// "[2, 3]"
std::string shapeToString(const std::vector<int64_t> &shape);

/// A tensor inside a mapped file. `data` lives as long as its file.
struct TensorView {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  const void *data = nullptr;
  size_t byteSize = 0;
  uint64_t fileOffset = 0; // absolute offset of the first byte in the file

  int64_t elementCount() const { return shapeElementCount(shape); }
};

/// Progress of a long write: tensors and bytes done so far. A callback that
/// sets `cancel` stops the write: it fails ("interrupted") and leaves nothing
/// behind (a tool turns SIGINT into this; the library handles no signals).
struct Progress {
  size_t tensorsDone = 0;
  size_t tensorsTotal = 0;
  uint64_t bytesDone = 0;
  uint64_t bytesTotal = 0;
  bool cancel = false;
};
using ProgressFn = std::function<void(Progress &)>;

/// A read-only, memory-mapped safetensors file. Move-only.
class SafetensorsFile {
public:
  /// Maps and validates `path`. Errors are prefixed with "<path>: ".
  static Expected<SafetensorsFile> open(const std::string &path);

  SafetensorsFile(SafetensorsFile &&other) noexcept;
  SafetensorsFile &operator=(SafetensorsFile &&other) noexcept;
  SafetensorsFile(const SafetensorsFile &) = delete;
  SafetensorsFile &operator=(const SafetensorsFile &) = delete;
  ~SafetensorsFile();

  const std::string &path() const;
  uint64_t fileSize() const;
  /// Tensors in data order (ascending file offset).
  const std::vector<TensorView> &tensors() const;
  /// The tensor called `name`, or null.
  const TensorView *find(const std::string &name) const;
  /// The `__metadata__` map (string values only, as the format requires).
  const std::map<std::string, std::string> &metadata() const;
  /// A metadata value, or empty when absent.
  std::string metadataValue(const std::string &key) const;

private:
  struct State;
  explicit SafetensorsFile(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// Fills exactly `byteSize` bytes at `destination` with a tensor's data.
using TensorFiller = std::function<Status(void *destination, size_t byteSize)>;

/// Builds a safetensors file. Tensors are written in the order added; each
/// data offset is a multiple of `alignment` (default 8; the gaps are zero).
/// Alignment 1 writes the gap-free layout that strict readers (Hugging Face's
/// `safetensors`, which rejects holes) require.
class SafetensorsWriter {
public:
  explicit SafetensorsWriter(size_t alignment = 8);

  void setMetadata(const std::string &key, const std::string &value);

  /// Copies `byteSize` bytes from `data`; byteSize must match dtype and shape.
  Status addTensor(const std::string &name, DType dtype,
                   std::vector<int64_t> shape, const void *data,
                   size_t byteSize);
  /// Takes the bytes.
  Status addTensor(const std::string &name, DType dtype,
                   std::vector<int64_t> shape, std::vector<uint8_t> bytes);
  /// Bytes made at write time by `fill`, called once, in order.
  Status addLazyTensor(const std::string &name, DType dtype,
                       std::vector<int64_t> shape, TensorFiller fill);

  size_t tensorCount() const;
  /// Total bytes the file will have.
  uint64_t plannedFileSize() const;

  /// Writes `path` atomically (temporary file in the same folder, then
  /// rename). On error nothing is left at `path` or beside it.
  Status write(const std::string &path, const ProgressFn &progress = {}) const;

private:
  struct Entry {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    size_t byteSize;
    std::shared_ptr<std::vector<uint8_t>> bytes; // null when lazy
    TensorFiller fill;
  };
  Status addEntry(Entry entry);
  std::string headerText(std::vector<uint64_t> &offsets) const;

  size_t alignment_;
  std::map<std::string, std::string> metadata_;
  std::vector<Entry> entries_;
  std::map<std::string, size_t> indexByName_;
};

/// Writes `bytes` to `path` atomically (temporary file + rename).
Status writeFileAtomically(const std::string &path, const std::string &bytes);

} // namespace kiln::io

#endif // KILN_IO_SAFETENSORS_H
