#include "base/owned_bytes.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::rt {

Status OwnedBytes::allocate(size_t size, std::unique_ptr<OwnedBytes> &out) {
  std::unique_ptr<OwnedBytes> bytes(new (std::nothrow) OwnedBytes());
  if (!bytes)
    return resourceExhausted("out of host memory");
  try {
    bytes->words_.resize((size + 7) / 8);
  } catch (const std::bad_alloc &) {
    return resourceExhausted("out of host memory for " + std::to_string(size) + " bytes");
  }
  bytes->size_ = size;
  out = std::move(bytes);
  return okStatus();
}

Status OwnedBytes::readFile(const std::string &path, uint64_t maxBytes,
                            std::unique_ptr<OwnedBytes> &out) {
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
  const uint64_t size = static_cast<uint64_t>(info.st_size);
  if (size > maxBytes) {
    ::close(fd);
    return invalidArgument("'" + path + "': " + std::to_string(size) +
                           " bytes, more than the " + std::to_string(maxBytes) + " allowed");
  }
  std::unique_ptr<OwnedBytes> bytes;
  if (Status status = allocate(static_cast<size_t>(size), bytes); !status.ok()) {
    ::close(fd);
    return status;
  }
  uint8_t *into = reinterpret_cast<uint8_t *>(bytes->words_.data());
  size_t done = 0;
  while (done < size) {
    ssize_t got = ::read(fd, into + done, static_cast<size_t>(size) - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      int err = got < 0 ? errno : 0;
      ::close(fd);
      return invalidArgument("'" + path + "': " +
                             (err ? std::string(std::strerror(err))
                                  : "changed while being read (" + std::to_string(done) + " of " +
                                        std::to_string(size) + " bytes)"));
    }
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  out = std::move(bytes);
  return okStatus();
}

Status OwnedBytes::copyMemory(const void *data, size_t size, std::unique_ptr<OwnedBytes> &out) {
  std::unique_ptr<OwnedBytes> bytes;
  KILN_RETURN_IF_ERROR(allocate(size, bytes));
  if (size)
    std::memcpy(bytes->words_.data(), data, size);
  out = std::move(bytes);
  return okStatus();
}

} // namespace kiln::rt
