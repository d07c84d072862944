//===- Safetensors.cpp - Checked reader, atomic streaming writer ----------===//
#include "kiln/IO/Safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::io {

using json = nlohmann::json;

namespace {
/// The reference implementation refuses headers above 100 MB; so do we, which
/// also bounds what a corrupt length field can make us parse.
constexpr uint64_t kMaxHeaderBytes = 100ull * 1024 * 1024;

std::string systemError() { return std::strerror(errno); }
} // namespace

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "F32";
  case DType::F16:
    return "F16";
  case DType::I8:
    return "I8";
  }
  return "?";
}

size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return 4;
  case DType::F16:
    return 2;
  case DType::I8:
    return 1;
  }
  return 0;
}

Expected<DType> parseDType(const std::string &text) {
  if (text == "F32")
    return DType::F32;
  if (text == "F16")
    return DType::F16;
  if (text == "I8")
    return DType::I8;
  return Error("unknown dtype \"" + text + "\" (Kiln reads F32, F16, I8)");
}

int64_t shapeElementCount(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return -1;
    if (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim)
      return -1;
    count *= dim;
  }
  return count;
}

std::string shapeToString(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

struct SafetensorsFile::State {
  std::string path;
  void *mapping = nullptr;
  uint64_t size = 0;
  std::vector<TensorView> tensors;
  std::map<std::string, size_t> indexByName;
  std::map<std::string, std::string> metadata;

  ~State() {
    if (mapping)
      munmap(mapping, size);
  }
};

SafetensorsFile::SafetensorsFile(std::unique_ptr<State> state)
    : state_(std::move(state)) {}
SafetensorsFile::SafetensorsFile(SafetensorsFile &&other) noexcept = default;
SafetensorsFile &
SafetensorsFile::operator=(SafetensorsFile &&other) noexcept = default;
SafetensorsFile::~SafetensorsFile() = default;

const std::string &SafetensorsFile::path() const { return state_->path; }
uint64_t SafetensorsFile::fileSize() const { return state_->size; }
const std::vector<TensorView> &SafetensorsFile::tensors() const {
  return state_->tensors;
}
const std::map<std::string, std::string> &SafetensorsFile::metadata() const {
  return state_->metadata;
}

const TensorView *SafetensorsFile::find(const std::string &name) const {
  auto it = state_->indexByName.find(name);
  return it == state_->indexByName.end() ? nullptr
                                         : &state_->tensors[it->second];
}

std::string SafetensorsFile::metadataValue(const std::string &key) const {
  auto it = state_->metadata.find(key);
  return it == state_->metadata.end() ? std::string() : it->second;
}

namespace {

/// Reads a non-negative integer array of a header entry.
bool readUnsignedList(const json &value, std::vector<uint64_t> &out) {
  if (!value.is_array())
    return false;
  for (const json &item : value) {
    if (!item.is_number_unsigned() &&
        !(item.is_number_integer() && item.get<int64_t>() >= 0))
      return false;
    out.push_back(item.get<uint64_t>());
  }
  return true;
}

/// Parses and checks the header against a data area of `dataBytes` bytes
/// starting at file offset `dataStart`.
Status parseHeader(const std::string &headerText, uint64_t dataStart,
                   uint64_t dataBytes, const uint8_t *base,
                   std::vector<TensorView> &tensors,
                   std::map<std::string, std::string> &metadata) {
  json header = json::parse(headerText, nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded())
    return Error("header is not valid JSON");
  if (!header.is_object())
    return Error("header must be a JSON object");

  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string &name = it.key();
    const json &entry = it.value();
    if (name == "__metadata__") {
      if (!entry.is_object())
        return Error("__metadata__ must be an object of strings");
      for (auto m = entry.begin(); m != entry.end(); ++m) {
        if (!m.value().is_string())
          return Error("__metadata__." + m.key() + " must be a string");
        metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    std::string where = "tensor '" + name + "': ";
    if (!entry.is_object())
      return Error(where + "entry must be an object");
    for (auto field = entry.begin(); field != entry.end(); ++field)
      if (field.key() != "dtype" && field.key() != "shape" &&
          field.key() != "data_offsets")
        return Error(where + "unknown field \"" + field.key() + "\"");
    auto dtypeIt = entry.find("dtype");
    if (dtypeIt == entry.end() || !dtypeIt->is_string())
      return Error(where + "dtype is missing or not a string");
    Expected<DType> dtype = parseDType(dtypeIt->get<std::string>());
    if (!dtype)
      return dtype.error().withPrefix(where);

    auto shapeIt = entry.find("shape");
    std::vector<uint64_t> dims;
    if (shapeIt == entry.end() || !readUnsignedList(*shapeIt, dims))
      return Error(where + "shape is missing or not a list of integers >= 0");
    std::vector<int64_t> shape;
    for (uint64_t dim : dims) {
      if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return Error(where + "shape dimension too large");
      shape.push_back(static_cast<int64_t>(dim));
    }
    int64_t count = shapeElementCount(shape);
    if (count < 0 || static_cast<uint64_t>(count) >
                         std::numeric_limits<uint64_t>::max() / 8)
      return Error(where + "shape " + shapeToString(shape) +
                   " has too many elements");

    auto offsetsIt = entry.find("data_offsets");
    std::vector<uint64_t> offsets;
    if (offsetsIt == entry.end() || !readUnsignedList(*offsetsIt, offsets) ||
        offsets.size() != 2)
      return Error(where + "data_offsets must be two integers >= 0");
    uint64_t begin = offsets[0], end = offsets[1];
    std::string range =
        "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
    if (end < begin)
      return Error(where + "data_offsets " + range + " end before they begin");
    if (end > dataBytes)
      return Error(where + "data range " + range +
                   " runs past the end of the file (the data area holds " +
                   std::to_string(dataBytes) + " bytes)");
    uint64_t expected = static_cast<uint64_t>(count) * dtypeSize(*dtype);
    if (end - begin != expected)
      return Error(where + "shape " + shapeToString(shape) + " of " +
                   dtypeName(*dtype) + " needs " + std::to_string(expected) +
                   " bytes but data_offsets " + range + " hold " +
                   std::to_string(end - begin));

    TensorView view;
    view.name = name;
    view.dtype = *dtype;
    view.shape = std::move(shape);
    view.fileOffset = dataStart + begin;
    view.byteSize = static_cast<size_t>(expected);
    view.data = base + view.fileOffset;
    tensors.push_back(std::move(view));
  }

  std::stable_sort(tensors.begin(), tensors.end(),
                   [](const TensorView &a, const TensorView &b) {
                     return a.fileOffset < b.fileOffset;
                   });
  for (size_t i = 1; i < tensors.size(); ++i) {
    const TensorView &previous = tensors[i - 1];
    const TensorView &current = tensors[i];
    if (current.fileOffset < previous.fileOffset + previous.byteSize)
      return Error("tensors '" + previous.name + "' and '" + current.name +
                   "' overlap in the data area");
  }
  return Status::success();
}

} // namespace

Expected<SafetensorsFile> SafetensorsFile::open(const std::string &path) {
  auto fail = [&](const std::string &message) {
    return Error(path + ": " + message);
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail("cannot open: " + systemError());
  struct stat info;
  if (fstat(fd, &info) != 0) {
    std::string message = systemError();
    ::close(fd);
    return fail("cannot stat: " + message);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return fail("not a regular file");
  }
  auto state = std::make_unique<State>();
  state->path = path;
  state->size = static_cast<uint64_t>(info.st_size);
  if (state->size < 8) {
    ::close(fd);
    return fail("truncated file: " + std::to_string(state->size) +
                " bytes, less than the 8-byte header length");
  }
  void *mapping = mmap(nullptr, state->size, PROT_READ, MAP_PRIVATE, fd, 0);
  std::string mapError = mapping == MAP_FAILED ? systemError() : "";
  ::close(fd); // the mapping keeps the file alive
  if (mapping == MAP_FAILED)
    return fail("cannot map: " + mapError);
  state->mapping = mapping;
  const uint8_t *base = static_cast<const uint8_t *>(mapping);

  uint64_t headerBytes = 0;
  for (int i = 7; i >= 0; --i) // little-endian on every host
    headerBytes = (headerBytes << 8) | base[i];
  if (headerBytes > state->size - 8)
    return fail("header length " + std::to_string(headerBytes) +
                " runs past the end of the file (" +
                std::to_string(state->size) + " bytes)");
  if (headerBytes > kMaxHeaderBytes)
    return fail("header length " + std::to_string(headerBytes) +
                " exceeds the 100 MB limit");
  if (headerBytes < 2)
    return fail("header length " + std::to_string(headerBytes) +
                " is too short for a JSON object");

  std::string headerText(reinterpret_cast<const char *>(base + 8),
                         static_cast<size_t>(headerBytes));
  uint64_t dataStart = 8 + headerBytes;
  if (Status status = parseHeader(headerText, dataStart,
                                  state->size - dataStart, base,
                                  state->tensors, state->metadata);
      !status)
    return status.error().withPrefix(path + ": ");
  for (size_t i = 0; i < state->tensors.size(); ++i)
    state->indexByName[state->tensors[i].name] = i;
  return SafetensorsFile(std::move(state));
}

//===----------------------------------------------------------------------===//
// Atomic output
//===----------------------------------------------------------------------===//

namespace {

/// A temporary file beside the target; commit() renames it into place, and
/// the destructor removes it if commit() was never reached.
class AtomicOutput {
public:
  explicit AtomicOutput(std::string path) : path_(std::move(path)) {}
  ~AtomicOutput() {
    if (fd_ >= 0)
      ::close(fd_);
    if (!tempPath_.empty())
      ::unlink(tempPath_.c_str());
  }

  Status open() {
    // Only a regular file (or nothing) is replaced: renaming onto a symlink or a
    // device node would turn it into a regular file.
    struct stat existing;
    if (::lstat(path_.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode))
      return Error(path_ + ": exists and is not a regular file (a symlink, device or "
                           "folder): refusing to replace it");
    std::string pattern = path_ + ".tmp.XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    fd_ = mkstemp(buffer.data());
    if (fd_ < 0)
      return Error(path_ + ": cannot create a temporary file beside it: " +
                   systemError());
    tempPath_ = buffer.data();
    // mkstemp makes the file private (0600); outputs are ordinary files.
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd_, 0666 & ~mask);
    return Status::success();
  }

  Status write(const void *data, size_t bytes) {
    const char *cursor = static_cast<const char *>(data);
    while (bytes > 0) {
      ssize_t written = ::write(fd_, cursor, bytes);
      if (written < 0) {
        if (errno == EINTR)
          continue;
        return Error(path_ + ": write failed: " + systemError());
      }
      cursor += written;
      bytes -= static_cast<size_t>(written);
    }
    return Status::success();
  }

  Status writeZeros(size_t bytes) {
    static const char zeros[64] = {};
    while (bytes > 0) {
      size_t chunk = std::min(bytes, sizeof(zeros));
      if (Status status = write(zeros, chunk); !status)
        return status;
      bytes -= chunk;
    }
    return Status::success();
  }

  Status commit() {
    int fd = fd_;
    fd_ = -1;
    if (::fsync(fd) != 0 || ::close(fd) != 0)
      return Error(path_ + ": cannot flush the temporary file: " +
                   systemError());
    if (::rename(tempPath_.c_str(), path_.c_str()) != 0)
      return Error(path_ + ": cannot rename the temporary file into place: " +
                   systemError());
    tempPath_.clear();
    return Status::success();
  }

private:
  std::string path_;
  std::string tempPath_;
  int fd_ = -1;
};

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

} // namespace

Status writeFileAtomically(const std::string &path, const std::string &bytes) {
  AtomicOutput output(path);
  if (Status status = output.open(); !status)
    return status;
  if (Status status = output.write(bytes.data(), bytes.size()); !status)
    return status;
  return output.commit();
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

SafetensorsWriter::SafetensorsWriter(size_t alignment)
    : alignment_(alignment == 0 ? 1 : alignment) {}

void SafetensorsWriter::setMetadata(const std::string &key,
                                    const std::string &value) {
  metadata_[key] = value;
}

Status SafetensorsWriter::addEntry(Entry entry) {
  std::string where = "tensor '" + entry.name + "': ";
  if (entry.name.empty())
    return Error("tensor name must not be empty");
  if (entry.name == "__metadata__")
    return Error("tensor name __metadata__ is reserved");
  if (indexByName_.count(entry.name))
    return Error(where + "added twice");
  int64_t count = shapeElementCount(entry.shape);
  if (count < 0)
    return Error(where + "invalid shape " + shapeToString(entry.shape));
  uint64_t expected = static_cast<uint64_t>(count) * dtypeSize(entry.dtype);
  if (entry.byteSize != expected)
    return Error(where + "shape " + shapeToString(entry.shape) + " of " +
                 dtypeName(entry.dtype) + " needs " + std::to_string(expected) +
                 " bytes, got " + std::to_string(entry.byteSize));
  indexByName_[entry.name] = entries_.size();
  entries_.push_back(std::move(entry));
  return Status::success();
}

Status SafetensorsWriter::addTensor(const std::string &name, DType dtype,
                                    std::vector<int64_t> shape,
                                    const void *data, size_t byteSize) {
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  return addTensor(name, dtype, std::move(shape),
                   std::vector<uint8_t>(bytes, bytes + byteSize));
}

Status SafetensorsWriter::addTensor(const std::string &name, DType dtype,
                                    std::vector<int64_t> shape,
                                    std::vector<uint8_t> bytes) {
  Entry entry{name, dtype, std::move(shape), bytes.size(),
              std::make_shared<std::vector<uint8_t>>(std::move(bytes)), {}};
  return addEntry(std::move(entry));
}

Status SafetensorsWriter::addLazyTensor(const std::string &name, DType dtype,
                                        std::vector<int64_t> shape,
                                        TensorFiller fill) {
  int64_t count = shapeElementCount(shape);
  size_t byteSize =
      count < 0 ? 0 : static_cast<size_t>(count) * dtypeSize(dtype);
  Entry entry{name, dtype, std::move(shape), byteSize, nullptr,
              std::move(fill)};
  if (!entry.fill)
    return Error("tensor '" + name + "': lazy tensor without a filler");
  return addEntry(std::move(entry));
}

size_t SafetensorsWriter::tensorCount() const { return entries_.size(); }

std::string SafetensorsWriter::headerText(std::vector<uint64_t> &offsets) const {
  json header = json::object();
  if (!metadata_.empty())
    header["__metadata__"] = metadata_;
  offsets.clear();
  uint64_t cursor = 0;
  for (const Entry &entry : entries_) {
    cursor = alignUp(cursor, alignment_);
    offsets.push_back(cursor);
    header[entry.name] = {{"dtype", dtypeName(entry.dtype)},
                          {"shape", entry.shape},
                          {"data_offsets", {cursor, cursor + entry.byteSize}}};
    cursor += entry.byteSize;
  }
  std::string text = header.dump();
  // Spaces after the JSON (allowed by the format) put the data area on an
  // aligned file offset.
  uint64_t dataStart = alignUp(8 + text.size(), std::max<size_t>(alignment_, 8));
  text.append(static_cast<size_t>(dataStart - 8 - text.size()), ' ');
  return text;
}

uint64_t SafetensorsWriter::plannedFileSize() const {
  std::vector<uint64_t> offsets;
  std::string header = headerText(offsets);
  uint64_t dataEnd = entries_.empty()
                         ? 0
                         : offsets.back() + entries_.back().byteSize;
  return 8 + header.size() + dataEnd;
}

Status SafetensorsWriter::write(const std::string &path,
                                const ProgressFn &progress) const {
  std::vector<uint64_t> offsets;
  std::string header = headerText(offsets);

  Progress state;
  state.tensorsTotal = entries_.size();
  for (const Entry &entry : entries_)
    state.bytesTotal += entry.byteSize;

  AtomicOutput output(path);
  if (Status status = output.open(); !status)
    return status;
  uint8_t lengthBytes[8];
  uint64_t headerBytes = header.size();
  for (int i = 0; i < 8; ++i)
    lengthBytes[i] = static_cast<uint8_t>(headerBytes >> (8 * i));
  if (Status status = output.write(lengthBytes, 8); !status)
    return status;
  if (Status status = output.write(header.data(), header.size()); !status)
    return status;

  uint64_t cursor = 0;
  std::vector<uint8_t> scratch;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry &entry = entries_[i];
    if (Status status = output.writeZeros(offsets[i] - cursor); !status)
      return status;
    const void *data = nullptr;
    if (entry.bytes) {
      data = entry.bytes->data();
    } else {
      scratch.assign(entry.byteSize, 0);
      if (Status status = entry.fill(scratch.data(), entry.byteSize); !status)
        return status.error().withPrefix(path + ": tensor '" + entry.name +
                                         "': ");
      data = scratch.data();
    }
    if (Status status = output.write(data, entry.byteSize); !status)
      return status;
    cursor = offsets[i] + entry.byteSize;
    state.tensorsDone = i + 1;
    state.bytesDone += entry.byteSize;
    if (progress)
      progress(state);
    if (state.cancel)
      return Error(path + ": interrupted; the partial file was removed");
  }
  return output.commit();
}

} // namespace kiln::io
