//===- SafetensorsTest.cpp - Round trips and every malformed file ---------===//
#include "kiln/IO/Safetensors.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace kiln::io;

namespace {

/// A file made of an 8-byte length, `header` and `data`.
std::string rawFile(const std::string &header, const std::string &data,
                    uint64_t claimedLength = UINT64_MAX) {
  uint64_t length = claimedLength == UINT64_MAX ? header.size() : claimedLength;
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  return bytes + header + data;
}

std::string openError(const test::TempDir &dir, const std::string &bytes) {
  std::string path = dir.file("bad.safetensors");
  test::writeBytes(path, bytes);
  Expected<SafetensorsFile> file = SafetensorsFile::open(path);
  if (file)
    return "<opened>";
  std::string message = file.error().message();
  std::string prefix = path + ": ";
  EXPECT_EQ(message.compare(0, prefix.size(), prefix), 0) << message;
  return message.substr(prefix.size());
}

TEST(Safetensors, RoundTripsEveryDtypeAndMetadata) {
  test::TempDir dir;
  const float f32[6] = {1.5f, -2.0f, 0.0f, 3.25f, 1e-3f, -7.0f};
  const uint16_t f16[3] = {0x3c00, 0xc000, 0x7bff};
  const int8_t i8[5] = {-127, -1, 0, 1, 127};
  SafetensorsWriter writer;
  writer.setMetadata("kiln.format", "f16");
  ASSERT_TRUE(writer.addTensor("a.f32", DType::F32, {2, 3}, f32, sizeof(f32)));
  ASSERT_TRUE(writer.addTensor("b.f16", DType::F16, {3}, f16, sizeof(f16)));
  ASSERT_TRUE(writer.addTensor("c.i8", DType::I8, {5}, i8, sizeof(i8)));
  ASSERT_TRUE(writer.addLazyTensor(
      "d.lazy", DType::F32, {2}, [](void *out, size_t bytes) -> Status {
        float values[2] = {4.0f, 5.0f};
        std::memcpy(out, values, bytes);
        return Status::success();
      }));
  ASSERT_TRUE(writer.addTensor("e.scalar", DType::F32, {}, f32, 4));
  std::string path = dir.file("t.safetensors");
  size_t calls = 0;
  Progress last;
  ASSERT_TRUE(writer.write(path, [&](const Progress &p) {
    ++calls;
    last = p;
  }));
  EXPECT_EQ(calls, 5u);
  EXPECT_EQ(last.tensorsDone, 5u);
  EXPECT_EQ(last.bytesDone, last.bytesTotal);
  EXPECT_EQ(last.bytesTotal, 24u + 6u + 5u + 8u + 4u);

  Expected<SafetensorsFile> file = SafetensorsFile::open(path);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(file->fileSize(), writer.plannedFileSize());
  ASSERT_EQ(file->tensors().size(), 5u);
  EXPECT_EQ(file->metadataValue("kiln.format"), "f16");
  EXPECT_EQ(file->metadataValue("absent"), "");

  const TensorView *a = file->find("a.f32");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->dtype, DType::F32);
  EXPECT_EQ(a->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a->byteSize, sizeof(f32));
  EXPECT_EQ(std::memcmp(a->data, f32, sizeof(f32)), 0);
  const TensorView *b = file->find("b.f16");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(std::memcmp(b->data, f16, sizeof(f16)), 0);
  const TensorView *c = file->find("c.i8");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->dtype, DType::I8);
  EXPECT_EQ(std::memcmp(c->data, i8, sizeof(i8)), 0);
  const TensorView *d = file->find("d.lazy");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(static_cast<const float *>(d->data)[1], 5.0f);
  const TensorView *e = file->find("e.scalar");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->elementCount(), 1);
  EXPECT_EQ(file->find("missing"), nullptr);

  // Data order is the order added, every offset 8-byte aligned.
  EXPECT_EQ(file->tensors()[0].name, "a.f32");
  EXPECT_EQ(file->tensors()[4].name, "e.scalar");
  for (const TensorView &tensor : file->tensors())
    EXPECT_EQ(tensor.fileOffset % 8, 0u) << tensor.name;
  // No temporary left beside the output.
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"t.safetensors"});
}

TEST(Safetensors, PackedLayoutHasNoHoles) {
  test::TempDir dir;
  const int8_t i8[3] = {1, 2, 3};
  const float f32[1] = {1.0f};
  SafetensorsWriter writer(/*alignment=*/1);
  ASSERT_TRUE(writer.addTensor("x", DType::I8, {3}, i8, 3));
  ASSERT_TRUE(writer.addTensor("y", DType::F32, {1}, f32, 4));
  std::string path = dir.file("p.safetensors");
  ASSERT_TRUE(writer.write(path));
  Expected<SafetensorsFile> file = SafetensorsFile::open(path);
  ASSERT_TRUE(file);
  EXPECT_EQ(file->find("y")->fileOffset - file->find("x")->fileOffset, 3u);
  EXPECT_EQ(file->fileSize(), file->find("y")->fileOffset + 4);
}

TEST(Safetensors, WriterRefusesBadTensors) {
  SafetensorsWriter writer;
  const float values[4] = {};
  Status wrongSize = writer.addTensor("w", DType::F32, {3}, values, 16);
  ASSERT_FALSE(wrongSize);
  EXPECT_EQ(wrongSize.error().message(),
            "tensor 'w': shape [3] of F32 needs 12 bytes, got 16");
  ASSERT_TRUE(writer.addTensor("w", DType::F32, {4}, values, 16));
  Status twice = writer.addTensor("w", DType::F32, {4}, values, 16);
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().message(), "tensor 'w': added twice");
  Status reserved = writer.addTensor("__metadata__", DType::F32, {4}, values, 16);
  ASSERT_FALSE(reserved);
  EXPECT_EQ(reserved.error().message(), "tensor name __metadata__ is reserved");
  Status negative = writer.addTensor("n", DType::F32, {-1}, values, 0);
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error().message(), "tensor 'n': invalid shape [-1]");
}

TEST(Safetensors, FailedWriteLeavesNothing) {
  test::TempDir dir;
  std::string path = dir.file("out.safetensors");
  test::writeBytes(path, "previous contents");
  SafetensorsWriter writer;
  const float values[2] = {1, 2};
  ASSERT_TRUE(writer.addTensor("ok", DType::F32, {2}, values, 8));
  ASSERT_TRUE(writer.addLazyTensor(
      "broken", DType::F32, {2}, [](void *, size_t) -> Status {
        return Error("generator ran out of ideas");
      }));
  Status status = writer.write(path);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message(),
            path + ": tensor 'broken': generator ran out of ideas");
  // The old file is untouched and no temporary is left.
  EXPECT_EQ(test::readBytes(path), "previous contents");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.safetensors"});
}

TEST(Safetensors, WriteIntoMissingFolderFails) {
  SafetensorsWriter writer;
  Status status = writer.write("/nonexistent-kiln-dir/w.safetensors");
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message().find(
                "/nonexistent-kiln-dir/w.safetensors: cannot create a "
                "temporary file beside it"),
            std::string::npos)
      << status.error().message();
}

TEST(Safetensors, WriteFileAtomically) {
  test::TempDir dir;
  std::string path = dir.file("x.txt");
  ASSERT_TRUE(writeFileAtomically(path, "hello"));
  EXPECT_EQ(test::readBytes(path), "hello");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"x.txt"});
}

TEST(Safetensors, MissingFile) {
  Expected<SafetensorsFile> file =
      SafetensorsFile::open("/nonexistent/w.safetensors");
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().message().rfind("/nonexistent/w.safetensors: cannot open: ", 0),
            0u);
}

TEST(Safetensors, MalformedFiles) {
  test::TempDir dir;
  const std::string good =
      R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::string eightBytes(8, '\0');
  // The well-formed baseline opens.
  EXPECT_EQ(openError(dir, rawFile(good, eightBytes)), "<opened>");

  EXPECT_EQ(openError(dir, std::string("\x05\0\0", 3)),
            "truncated file: 3 bytes, less than the 8-byte header length");
  EXPECT_EQ(openError(dir, rawFile(good, eightBytes, 1000)),
            "header length 1000 runs past the end of the file (70 bytes)");
  EXPECT_EQ(openError(dir, rawFile(good, eightBytes, UINT64_MAX - 1)),
            "header length 18446744073709551614 runs past the end of the file "
            "(70 bytes)");
  EXPECT_EQ(openError(dir, rawFile("{\"t\": [", "")), "header is not valid JSON");
  EXPECT_EQ(openError(dir, rawFile("[1,2]", "")),
            "header must be a JSON object");
  EXPECT_EQ(openError(dir, rawFile("{}", "")), "<opened>");
  EXPECT_EQ(openError(dir, rawFile(R"({"t":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})",
                                   std::string(4, '\0'))),
            "tensor 't': unknown dtype \"BF16\" (Kiln reads F32, F16, I8)");
  EXPECT_EQ(openError(dir, rawFile(good, std::string(4, '\0'))),
            "tensor 't': data range [0, 8) runs past the end of the file (the "
            "data area holds 4 bytes)");
  EXPECT_EQ(openError(dir, rawFile(R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                                   eightBytes)),
            "tensor 't': shape [3] of F32 needs 12 bytes but data_offsets [0, 8) "
            "hold 8");
  EXPECT_EQ(openError(dir, rawFile(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})",
                                   eightBytes)),
            "tensor 't': data_offsets [8, 0) end before they begin");
  EXPECT_EQ(openError(dir, rawFile(R"({"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})",
                                   eightBytes)),
            "tensor 't': shape is missing or not a list of integers >= 0");
  EXPECT_EQ(openError(dir, rawFile(R"({"t":{"dtype":"F32","shape":[2]}})", eightBytes)),
            "tensor 't': data_offsets must be two integers >= 0");
  EXPECT_EQ(openError(dir, rawFile(R"({"t":{"shape":[2],"data_offsets":[0,8]}})",
                                   eightBytes)),
            "tensor 't': dtype is missing or not a string");
  EXPECT_EQ(openError(dir, rawFile(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"extra":1}})",
                                   eightBytes)),
            "tensor 't': unknown field \"extra\"");
  EXPECT_EQ(openError(dir, rawFile(R"({"t":[1]})", eightBytes)),
            "tensor 't': entry must be an object");
  EXPECT_EQ(openError(dir, rawFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                   R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                   eightBytes)),
            "tensors 'a' and 'b' overlap in the data area");
  EXPECT_EQ(openError(dir, rawFile(R"({"__metadata__":{"k":1}})", "")),
            "__metadata__.k must be a string");
  EXPECT_EQ(openError(dir, rawFile(R"({"__metadata__":[1]})", "")),
            "__metadata__ must be an object of strings");
  EXPECT_EQ(openError(dir, rawFile("", "")),
            "header length 0 is too short for a JSON object");
}

TEST(Safetensors, DtypeNames) {
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeSize(DType::F16), 2u);
  EXPECT_EQ(dtypeSize(DType::I8), 1u);
  for (DType dtype : {DType::F32, DType::F16, DType::I8}) {
    Expected<DType> parsed = parseDType(dtypeName(dtype));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, dtype);
  }
  EXPECT_FALSE(parseDType("f32"));
  EXPECT_EQ(shapeElementCount({}), 1);
  EXPECT_EQ(shapeElementCount({2, 0, 3}), 0);
  EXPECT_EQ(shapeElementCount({-1}), -1);
  EXPECT_EQ(shapeElementCount({INT64_MAX, 2}), -1);
  EXPECT_EQ(shapeToString({4, 5}), "[4, 5]");
}

} // namespace
