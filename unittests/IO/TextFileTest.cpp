//===- TextFileTest.cpp - Bounded whole-file reads --------------------------===//
#include "kiln/IO/TextFile.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace kiln::io;

namespace {

/// A file of `n` bytes in `dir`.
std::string fileOfSize(const kiln::io::test::TempDir &dir, const std::string &name, size_t n) {
  std::string path = dir.file(name);
  kiln::io::test::writeBytes(path, std::string(n, 'x'));
  return path;
}

TEST(TextFile, ReadsAFileUpToTheLimitWhole) {
  kiln::io::test::TempDir dir;
  Expected<std::string> text = readTextFile(fileOfSize(dir, "a", 200000), 200000, "config file");
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(text->size(), 200000u);
}

TEST(TextFile, OneByteOverTheLimitIsAnErrorNamingThePath) {
  kiln::io::test::TempDir dir;
  std::string path = fileOfSize(dir, "b", 200001);
  Expected<std::string> text = readTextFile(path, 200000, "config file");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message(),
            path + ": config file is larger than 200000 bytes (is it the right file?)");
}

TEST(TextFile, AnEndlessDeviceStopsAtTheLimit) {
  Expected<std::string> text = readTextFile("/dev/zero", 1000, "target descriptor");
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message().find("larger than 1000 bytes"), std::string::npos);
}

TEST(TextFile, AMissingFileCannotBeOpened) {
  Expected<std::string> text = readTextFile("/nonexistent/kiln.json", 1000, "config file");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message(), "/nonexistent/kiln.json: cannot open config file");
}

} // namespace
