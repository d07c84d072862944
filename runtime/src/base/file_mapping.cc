#include "base/file_mapping.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::rt {

Status FileMapping::mapFile(const std::string &path, std::unique_ptr<FileMapping> &out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string what = "'" + path + "': " + std::strerror(err);
    return err == ENOENT ? notFound(what) : invalidArgument(what);
  }
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return invalidArgument("'" + path + "': not a regular file");
  }
  std::unique_ptr<FileMapping> mapping(new (std::nothrow) FileMapping());
  if (!mapping) {
    ::close(fd);
    return resourceExhausted("out of host memory");
  }
  mapping->size_ = static_cast<size_t>(info.st_size);
  if (mapping->size_ > 0) {
    void *base = ::mmap(nullptr, mapping->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return resourceExhausted("'" + path + "': mmap failed: " + std::strerror(err));
    }
    mapping->mapped_ = base;
    mapping->data_ = static_cast<const uint8_t *>(base);
  }
  ::close(fd);
  out = std::move(mapping);
  return okStatus();
}

Status FileMapping::copyMemory(const void *data, size_t size, std::unique_ptr<FileMapping> &out) {
  std::unique_ptr<FileMapping> mapping(new (std::nothrow) FileMapping());
  if (!mapping)
    return resourceExhausted("out of host memory");
  try {
    mapping->copy_.resize((size + 7) / 8);
  } catch (const std::bad_alloc &) {
    return resourceExhausted("out of host memory copying " + std::to_string(size) + " bytes");
  }
  if (size)
    std::memcpy(mapping->copy_.data(), data, size);
  mapping->data_ = reinterpret_cast<const uint8_t *>(mapping->copy_.data());
  mapping->size_ = size;
  out = std::move(mapping);
  return okStatus();
}

FileMapping::~FileMapping() {
  if (mapped_)
    ::munmap(mapped_, size_);
}

} // namespace kiln::rt
