//===- AtomicFile.cpp - Temporary file, then rename -----------------------===//
#include "kiln/Target/Plan/AtomicFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln {

std::string writeFileAtomically(const std::string &path, const void *data,
                                size_t size) {
  // Only a regular file (or nothing) is replaced: renaming onto a symlink or a
  // device node would turn it into a regular file.
  struct stat existing;
  if (::lstat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode))
    return "'" + path + "' exists and is not a regular file (a symlink, device or folder): "
           "refusing to replace it";
  std::string temp = path + ".tmp.XXXXXX";
  int fd = mkstemp(temp.data());
  if (fd < 0)
    return "cannot create a temporary file beside '" + path +
           "': " + std::strerror(errno);
  auto failWith = [&](const std::string &step) {
    std::string message = "cannot " + step + " '" + path + "': " + std::strerror(errno);
    ::close(fd);
    std::remove(temp.c_str());
    return message;
  };
  const char *bytes = static_cast<const char *>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, bytes + done, size - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return failWith("write");
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0)
    return failWith("flush");
  // mkstemp makes the file 0600; a plan is an ordinary output file.
  ::fchmod(fd, 0644);
  if (::close(fd) != 0) {
    std::string message = "cannot close '" + path + "': " + std::strerror(errno);
    std::remove(temp.c_str());
    return message;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::string message = "cannot rename the temporary file onto '" + path +
                          "': " + std::strerror(errno);
    std::remove(temp.c_str());
    return message;
  }
  return "";
}

} // namespace kiln
