//===- SyntheticWeightsTest.cpp - Determinism, scales, valid files --------===//
#include "kiln/IO/SyntheticWeights.h"

#include "kiln/IO/Half.h"
#include "kiln/IO/Quantize.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace kiln::io;

namespace {

ModelConfig loadExample(const std::string &name) {
  Expected<ModelConfig> config = loadModelConfig(test::examplePath(name));
  EXPECT_TRUE(config) << config.error().message();
  return config ? *config : ModelConfig();
}

const LogicalWeight &findWeight(const std::vector<LogicalWeight> &weights,
                                const std::string &name) {
  for (const LogicalWeight &weight : weights)
    if (weight.name == name)
      return weight;
  ADD_FAILURE() << "no weight " << name;
  return weights.front();
}

uint64_t fnv1a(const std::string &bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

double rmsOf(const std::vector<float> &values) {
  double sum = 0;
  for (float v : values)
    sum += static_cast<double>(v) * v;
  return std::sqrt(sum / static_cast<double>(values.size()));
}

TEST(SyntheticWeights, FilesAreValidAndDeterministic) {
  test::TempDir dir;
  for (const char *name : {"embryo-tiny.json", "dory-tiny.json"}) {
    ModelConfig config = loadExample(name);
    for (WeightFormat format : {WeightFormat::F16, WeightFormat::Q8_2F}) {
      std::string first = dir.file("a.safetensors");
      std::string second = dir.file("b.safetensors");
      std::string other = dir.file("c.safetensors");
      ASSERT_TRUE(writeSyntheticWeights(config, 7, format, first));
      ASSERT_TRUE(writeSyntheticWeights(config, 7, format, second));
      ASSERT_TRUE(writeSyntheticWeights(config, 8, format, other));
      EXPECT_EQ(test::readBytes(first), test::readBytes(second)) << name;
      EXPECT_NE(test::readBytes(first), test::readBytes(other)) << name;

      Expected<SafetensorsFile> file = SafetensorsFile::open(first);
      ASSERT_TRUE(file) << file.error().message();
      Status check = checkWeights(*file, config);
      EXPECT_TRUE(check) << check.error().message();
      EXPECT_EQ(file->metadataValue("kiln.seed"), "7");
      EXPECT_EQ(file->metadataValue("kiln.format"), weightFormatName(format));
      // Every stored value is finite except the trunk shells (+inf).
      for (const TensorView &tensor : file->tensors()) {
        if (tensor.name.find("moe.shells") != std::string::npos)
          continue;
        for (int64_t i = 0; i < tensor.elementCount(); ++i) {
          float value = 0;
          if (tensor.dtype == DType::F32)
            value = static_cast<const float *>(tensor.data)[i];
          else if (tensor.dtype == DType::F16)
            value = halfBitsToFloat(static_cast<const uint16_t *>(tensor.data)[i]);
          else
            value = static_cast<const int8_t *>(tensor.data)[i];
          ASSERT_TRUE(std::isfinite(value)) << tensor.name << "[" << i << "]";
        }
      }
    }
  }
}

// Pins the generator: these bytes must be the same on every platform and
// compiler. When the scales are retuned on purpose, update the hash (the test
// prints the new one).
TEST(SyntheticWeights, GoldenHash) {
  test::TempDir dir;
  ModelConfig config = loadExample("embryo-tiny.json");
  std::string path = dir.file("golden.safetensors");
  ASSERT_TRUE(writeSyntheticWeights(config, 1, WeightFormat::F16, path));
  uint64_t hash = fnv1a(test::readBytes(path));
  std::printf("embryo-tiny seed 1 f16 fnv1a64: 0x%016llx\n",
              static_cast<unsigned long long>(hash));
  EXPECT_EQ(hash, 0x1acaf1ffdc85d521ull);
}

TEST(SyntheticWeights, StoredValuesAreTheGeneratedOnes) {
  test::TempDir dir;
  ModelConfig config = loadExample("embryo-tiny.json");
  std::vector<LogicalWeight> weights = logicalWeights(config);
  const LogicalWeight &qkv = findWeight(weights, "layers.0.gdn.qkv");
  std::vector<float> values = syntheticWeightValues(config, 5, qkv);

  std::string f16Path = dir.file("f16.safetensors");
  ASSERT_TRUE(writeSyntheticWeights(config, 5, WeightFormat::F16, f16Path));
  Expected<SafetensorsFile> f16 = SafetensorsFile::open(f16Path);
  ASSERT_TRUE(f16);
  const uint16_t *halves =
      static_cast<const uint16_t *>(f16->find("layers.0.gdn.qkv")->data);
  for (size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(halves[i], floatToHalfBits(values[i])) << i;

  std::string q8Path = dir.file("q8.safetensors");
  ASSERT_TRUE(writeSyntheticWeights(config, 5, WeightFormat::Q8_2F, q8Path));
  Expected<SafetensorsFile> q8 = SafetensorsFile::open(q8Path);
  ASSERT_TRUE(q8);
  Expected<QuantizedMatrix> expected =
      quantizeQ8_2F(values.data(), qkv.shape[0], qkv.shape[1]);
  ASSERT_TRUE(expected);
  const TensorView *codes = q8->find("layers.0.gdn.qkv.q");
  const TensorView *rows = q8->find("layers.0.gdn.qkv.row_scale");
  const TensorView *cols = q8->find("layers.0.gdn.qkv.col_scale");
  ASSERT_TRUE(codes && rows && cols);
  EXPECT_EQ(std::memcmp(codes->data, expected->codes.data(), codes->byteSize), 0);
  EXPECT_EQ(std::memcmp(rows->data, expected->rowScale.data(), rows->byteSize), 0);
  EXPECT_EQ(std::memcmp(cols->data, expected->colScale.data(), cols->byteSize), 0);
  QuantizationError error = measureQuantizationError(values.data(), *expected);
  EXPECT_LE(error.maxBoundRatio, 1.0 + 1e-5);
  std::printf("q8_2f on layers.0.gdn.qkv: maxAbs %.3g, maxRowRelative %.4f\n",
              error.maxAbs, error.maxRowRelative);
}

TEST(SyntheticWeights, ScalesFollowTheRoles) {
  ModelConfig embryo = loadExample("embryo-tiny.json");
  std::vector<LogicalWeight> weights = logicalWeights(embryo);
  const double H = 72.0;

  // Matrices: ~N(0, 1/cols) (unit-variance uniform sums: rms within 5%).
  std::vector<float> q = syntheticWeightValues(
      embryo, 3, findWeight(weights, "layers.1.attn.q"));
  EXPECT_NEAR(rmsOf(q) * std::sqrt(H), 1.0, 0.05);
  std::vector<float> o = syntheticWeightValues(
      embryo, 3, findWeight(weights, "layers.1.attn.o"));
  EXPECT_NEAR(rmsOf(o) * std::sqrt(96.0), 0.5, 0.03); // outputGain

  // Zero-centred norms sit near 0.
  std::vector<float> norm = syntheticWeightValues(
      embryo, 3, findWeight(weights, "layers.0.in_norm"));
  for (float w : norm)
    EXPECT_LT(std::fabs(w), 0.2f);

  // A_log = log(U[1,16]); dt_bias = softplus^-1 of dt in [1e-3, 1e-1].
  for (float a : syntheticWeightValues(
           embryo, 3, findWeight(weights, "layers.0.gdn.A_log"))) {
    EXPECT_GE(a, 0.0f);
    EXPECT_LE(a, std::log(16.0f));
  }
  for (float b : syntheticWeightValues(
           embryo, 3, findWeight(weights, "layers.0.gdn.dt_bias"))) {
    double dt = std::log1p(std::exp(static_cast<double>(b)));
    EXPECT_GE(dt, 0.99e-3);
    EXPECT_LE(dt, 1.01e-1);
  }

  // Shells: the first half of the experts are trunk (+inf), the rest finite
  // and positive.
  std::vector<float> shells = syntheticWeightValues(
      embryo, 3, findWeight(weights, "layers.1.moe.shells"));
  ASSERT_EQ(shells.size(), 4u);
  EXPECT_TRUE(std::isinf(shells[0]) && shells[0] > 0);
  EXPECT_TRUE(std::isinf(shells[1]) && shells[1] > 0);
  EXPECT_TRUE(std::isfinite(shells[2]) && shells[2] > 0);
  EXPECT_TRUE(std::isfinite(shells[3]) && shells[3] > 0);

  ModelConfig dory = loadExample("dory-tiny.json");
  std::vector<LogicalWeight> doryWeights = logicalWeights(dory);
  for (float alpha : syntheticWeightValues(
           dory, 3, findWeight(doryWeights, "layers.0.alpha_attn"))) {
    EXPECT_GE(alpha, 0.05f);
    EXPECT_LE(alpha, 0.3f);
  }
  std::vector<float> headScale = syntheticWeightValues(
      dory, 3, findWeight(doryWeights, "head_scale"));
  for (float s : headScale) {
    EXPECT_GE(s, 0.9f * 8.0f); // sqrt(64) = 8
    EXPECT_LE(s, 1.1f * 8.0f);
  }

  // Each weight has its own stream: two weights of equal shape differ.
  std::vector<float> k = syntheticWeightValues(
      embryo, 3, findWeight(weights, "layers.1.attn.k"));
  std::vector<float> v = syntheticWeightValues(
      embryo, 3, findWeight(weights, "layers.1.attn.v"));
  EXPECT_NE(k, v);
}

TEST(SyntheticWeights, RefusesAnInvalidConfig) {
  ModelConfig config = loadExample("embryo-tiny.json");
  config.hiddenSize = 0;
  test::TempDir dir;
  std::string path = dir.file("w.safetensors");
  Status status = writeSyntheticWeights(config, 1, WeightFormat::F16, path);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message(),
            "config: hidden_size (0) must be >= 1");
  EXPECT_TRUE(dir.entries().empty());
}

} // namespace
