//===- TestSupport.h - Temporary folders and files for IO tests -*- C++ -*-===//
#ifndef KILN_UNITTESTS_IO_TESTSUPPORT_H
#define KILN_UNITTESTS_IO_TESTSUPPORT_H

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace kiln::io::test {

/// A fresh folder under the system temp dir, removed with its contents.
class TempDir {
public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "kiln-io-test-XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()))
      path_ = buffer.data();
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty())
      std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string &name) const { return path_ + "/" + name; }
  const std::string &path() const { return path_; }
  /// Names of the entries in the folder (to prove no temporary was left).
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto &entry : std::filesystem::directory_iterator(path_))
      names.push_back(entry.path().filename().string());
    return names;
  }

private:
  std::string path_;
};

inline void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

inline std::string examplePath(const std::string &name) {
  return std::string(KILN_TEST_SOURCE_DIR) + "/examples/" + name;
}

} // namespace kiln::io::test

#endif // KILN_UNITTESTS_IO_TESTSUPPORT_H
