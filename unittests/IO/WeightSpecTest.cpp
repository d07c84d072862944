//===- WeightSpecTest.cpp - Tensor lists and checkWeights -----------------===//
#include "kiln/IO/WeightSpec.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <set>

using namespace kiln::io;

namespace {

ModelConfig loadExample(const std::string &name) {
  Expected<ModelConfig> config = loadModelConfig(test::examplePath(name));
  EXPECT_TRUE(config) << config.error().message();
  return config ? *config : ModelConfig();
}

const TensorSpec *findSpec(const std::vector<TensorSpec> &specs,
                           const std::string &name) {
  for (const TensorSpec &spec : specs)
    if (spec.name == name)
      return &spec;
  return nullptr;
}

/// Writes a file holding `specs` (zero bytes) with the given metadata.
std::string writeSpecs(const test::TempDir &dir,
                       const std::vector<TensorSpec> &specs,
                       const std::string &format, const std::string &family) {
  SafetensorsWriter writer;
  if (!format.empty())
    writer.setMetadata(kMetadataFormatKey, format);
  if (!family.empty())
    writer.setMetadata(kMetadataFamilyKey, family);
  for (const TensorSpec &spec : specs)
    EXPECT_TRUE(writer.addTensor(
        spec.name, spec.dtype, spec.shape,
        std::vector<uint8_t>(static_cast<size_t>(spec.byteSize()), 0)));
  std::string path = dir.file("w.safetensors");
  EXPECT_TRUE(writer.write(path));
  return path;
}

std::string checkError(const std::string &path, const ModelConfig &config,
                       WeightFormat format) {
  Expected<SafetensorsFile> file = SafetensorsFile::open(path);
  if (!file)
    return "open failed: " + file.error().message();
  Status status = checkWeights(*file, config, format);
  if (status)
    return "<ok>";
  std::string message = status.error().message();
  std::string prefix = path + ": ";
  EXPECT_EQ(message.compare(0, prefix.size(), prefix), 0) << message;
  return message.substr(prefix.size());
}

TEST(WeightSpec, FormatNames) {
  EXPECT_STREQ(weightFormatName(WeightFormat::F16), "f16");
  EXPECT_STREQ(weightFormatName(WeightFormat::Q8_2F), "q8_2f");
  EXPECT_EQ(*parseWeightFormat("q8_2f"), WeightFormat::Q8_2F);
  Expected<WeightFormat> bad = parseWeightFormat("q4");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(),
            "unknown weight format \"q4\" (expected \"f16\" or \"q8_2f\")");
}

TEST(WeightSpec, EmbryoTinyTensors) {
  ModelConfig config = loadExample("embryo-tiny.json");
  std::vector<TensorSpec> f16 = expectedTensors(config, WeightFormat::F16);
  // Per layer: 2 norms + 3 FFN; gdn 9, anchor 4 + 2 sinks;
  // MoE (layers 1, 2): centres, basis, bias, shells + 4 experts x 3.
  // Plus embed, final_norm, head.clusters, head.rows.
  const size_t perGdn = 2 + 3 + 9, perAnchor = 2 + 3 + 6, perMoe = 4 + 12;
  EXPECT_EQ(f16.size(), 4 + 2 * perGdn + 2 * perAnchor + 2 * perMoe);
  EXPECT_EQ(f16.front().name, "embed");
  EXPECT_EQ(f16.front().dtype, DType::F16);
  EXPECT_EQ(f16.back().name, "head.rows");

  std::set<std::string> names;
  for (const TensorSpec &spec : f16)
    EXPECT_TRUE(names.insert(spec.name).second) << "duplicate " << spec.name;

  struct Expect {
    const char *name;
    DType dtype;
    std::vector<int64_t> shape;
  };
  const Expect expectations[] = {
      {"embed", DType::F16, {256, 72}},
      {"layers.0.in_norm", DType::F32, {72}},
      {"layers.0.gdn.qkv", DType::F16, {68, 72}},
      {"layers.0.gdn.z", DType::F16, {36, 72}},
      {"layers.0.gdn.a", DType::F16, {3, 72}},
      {"layers.0.gdn.b", DType::F16, {3, 72}},
      {"layers.0.gdn.conv", DType::F32, {68, 4}},
      {"layers.0.gdn.A_log", DType::F32, {3}},
      {"layers.0.gdn.dt_bias", DType::F32, {3}},
      {"layers.0.gdn.norm", DType::F32, {12}},
      {"layers.0.gdn.out", DType::F16, {72, 36}},
      {"layers.1.attn.q", DType::F16, {96, 72}},
      {"layers.1.attn.k", DType::F16, {32, 72}},
      {"layers.1.attn.v", DType::F16, {32, 72}},
      {"layers.1.attn.o", DType::F16, {72, 96}},
      {"layers.1.attn.sink_k", DType::F32, {2, 2, 16}},
      {"layers.1.attn.sink_v", DType::F32, {2, 2, 16}},
      {"layers.1.ffn.gate", DType::F16, {96, 72}},
      {"layers.1.ffn.down", DType::F16, {72, 96}},
      {"layers.1.moe.centres", DType::F32, {4, 72}},
      {"layers.1.moe.basis", DType::F32, {4, 2, 72}},
      {"layers.1.moe.bias", DType::F32, {4}},
      {"layers.1.moe.shells", DType::F32, {4}},
      {"layers.2.moe.experts.3.up", DType::F16, {96, 72}},
      {"layers.2.moe.experts.3.down", DType::F16, {72, 96}},
      {"final_norm", DType::F32, {72}},
      {"head.clusters", DType::F32, {16, 72}},
      {"head.rows", DType::F16, {256, 72}},
  };
  for (const Expect &expect : expectations) {
    const TensorSpec *spec = findSpec(f16, expect.name);
    ASSERT_NE(spec, nullptr) << expect.name;
    EXPECT_EQ(spec->dtype, expect.dtype) << expect.name;
    EXPECT_EQ(spec->shape, expect.shape) << expect.name;
  }
  EXPECT_EQ(findSpec(f16, "layers.0.moe.centres"), nullptr);
  EXPECT_EQ(findSpec(f16, "layers.3.moe.centres"), nullptr);
  EXPECT_EQ(findSpec(f16, "layers.0.attn.q"), nullptr);

  std::vector<TensorSpec> q8 = expectedTensors(config, WeightFormat::Q8_2F);
  size_t matrices = 0;
  for (const LogicalWeight &weight : logicalWeights(config))
    matrices += weight.kind == WeightKind::Matrix;
  EXPECT_EQ(q8.size(), f16.size() + 2 * matrices);
  const TensorSpec *codes = findSpec(q8, "layers.0.gdn.qkv.q");
  ASSERT_NE(codes, nullptr);
  EXPECT_EQ(codes->dtype, DType::I8);
  EXPECT_EQ(codes->shape, (std::vector<int64_t>{68, 72}));
  EXPECT_EQ(codes->part, TensorPart::Codes);
  EXPECT_EQ(codes->logicalName, "layers.0.gdn.qkv");
  const TensorSpec *rows = findSpec(q8, "layers.0.gdn.qkv.row_scale");
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(rows->dtype, DType::F32);
  EXPECT_EQ(rows->shape, (std::vector<int64_t>{68}));
  const TensorSpec *cols = findSpec(q8, "layers.0.gdn.qkv.col_scale");
  ASSERT_NE(cols, nullptr);
  EXPECT_EQ(cols->shape, (std::vector<int64_t>{72}));
  EXPECT_EQ(findSpec(q8, "layers.0.gdn.qkv"), nullptr);
  // The embedding stays F16 in q8_2f.
  EXPECT_EQ(findSpec(q8, "embed")->dtype, DType::F16);
}

TEST(WeightSpec, DoryTinyTensors) {
  ModelConfig config = loadExample("dory-tiny.json");
  std::vector<TensorSpec> f16 = expectedTensors(config, WeightFormat::F16);
  EXPECT_EQ(f16.size(), 2u * 14u + 3u);
  const TensorSpec *sqk = findSpec(f16, "layers.1.attn.s_qk");
  ASSERT_NE(sqk, nullptr);
  EXPECT_EQ(sqk->shape, (std::vector<int64_t>{6, 16}));
  EXPECT_EQ(findSpec(f16, "layers.0.attn.gate")->shape,
            (std::vector<int64_t>{96, 64}));
  EXPECT_EQ(findSpec(f16, "layers.0.attn.k")->shape,
            (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(findSpec(f16, "layers.0.mlp.s_u")->shape,
            (std::vector<int64_t>{128}));
  EXPECT_EQ(findSpec(f16, "head")->dtype, DType::F16);
  EXPECT_EQ(findSpec(f16, "head_scale")->shape, (std::vector<int64_t>{256}));
  EXPECT_EQ(findSpec(f16, "layers.2.attn.q"), nullptr);
}

TEST(WeightSpec, DorySinkTensors) {
  ModelConfig config = loadExample("dory-tiny.json");
  EXPECT_EQ(findSpec(expectedTensors(config, WeightFormat::F16),
                     "layers.0.attn.sink_k"),
            nullptr);
  config.dory.numSinks = 3;
  for (WeightFormat format : {WeightFormat::F16, WeightFormat::Q8_2F}) {
    std::vector<TensorSpec> specs = expectedTensors(config, format);
    for (const char *name : {"layers.0.attn.sink_k", "layers.1.attn.sink_v"}) {
      const TensorSpec *spec = findSpec(specs, name);
      ASSERT_NE(spec, nullptr) << name;
      EXPECT_EQ(spec->dtype, DType::F32) << name;
      EXPECT_EQ(spec->shape, (std::vector<int64_t>{2, 3, 16})) << name;
    }
  }
}

TEST(WeightSpec, ParameterCounts) {
  // Counted by hand from docs/weights.md.
  {
    ModelConfig config = loadExample("dory-tiny.json");
    const int64_t H = 64, I = 128, V = 256, q = 96, kv = 32;
    int64_t layer = 2 * q * H + 2 * kv * H + H * q + q + q + 3 * I * H + 2 * I +
                    2 * H;
    EXPECT_EQ(parameterCount(config), 2 * V * H + V + 2 * layer);
  }
  {
    ModelConfig config = loadExample("embryo-tiny.json");
    const int64_t H = 72, I = 96, V = 256, NC = 16;
    const int64_t ffn = 3 * I * H, norms = 2 * H;
    const int64_t gdn = 68 * H + 36 * H + 2 * 3 * H + 68 * 4 + 3 + 3 + 12 + H * 36;
    const int64_t anchor = 96 * H + 2 * 32 * H + H * 96 + 2 * 2 * 2 * 16;
    const int64_t moe = 4 * H + 4 * 2 * H + 4 + 4 + 4 * ffn;
    EXPECT_EQ(parameterCount(config),
              V * H + H + NC * H + V * H + 4 * (ffn + norms) + 2 * gdn +
                  2 * anchor + 2 * moe);
  }
  // The large examples are about a billion parameters (~2 GB in f16).
  for (const char *name : {"embryo-1b.json", "dory-1b.json"}) {
    ModelConfig config = loadExample(name);
    int64_t count = parameterCount(config);
    EXPECT_GT(count, 900'000'000) << name;
    EXPECT_LT(count, 1'200'000'000) << name;
    std::printf("%s: %lld parameters, %.2f GB f16, %.2f GB q8_2f\n", name,
                static_cast<long long>(count),
                weightBytes(config, WeightFormat::F16) / 1e9,
                weightBytes(config, WeightFormat::Q8_2F) / 1e9);
  }
}

TEST(WeightSpec, CheckWeightsAcceptsACompleteFile) {
  test::TempDir dir;
  for (const char *name : {"embryo-tiny.json", "dory-tiny.json"}) {
    ModelConfig config = loadExample(name);
    for (WeightFormat format : {WeightFormat::F16, WeightFormat::Q8_2F}) {
      std::string path = writeSpecs(dir, expectedTensors(config, format),
                                    weightFormatName(format),
                                    modelFamilyName(config.family));
      EXPECT_EQ(checkError(path, config, format), "<ok>") << name;
      Expected<SafetensorsFile> file = SafetensorsFile::open(path);
      ASSERT_TRUE(file);
      EXPECT_TRUE(checkWeights(*file, config)); // format from metadata
      EXPECT_EQ(*detectWeightFormat(*file), format);
    }
  }
}

TEST(WeightSpec, CheckWeightsNamesTheProblem) {
  test::TempDir dir;
  ModelConfig config = loadExample("embryo-tiny.json");
  const std::vector<TensorSpec> good =
      expectedTensors(config, WeightFormat::F16);

  std::vector<TensorSpec> missing = good;
  missing.erase(missing.begin() + 2); // layers.0.gdn.qkv
  ASSERT_EQ(good[2].name, "layers.0.gdn.qkv");
  EXPECT_EQ(checkError(writeSpecs(dir, missing, "f16", "embryo"), config,
                       WeightFormat::F16),
            "missing tensor 'layers.0.gdn.qkv' (F16 [68, 72])");

  std::vector<TensorSpec> wrongDtype = good;
  wrongDtype[2].dtype = DType::F32;
  EXPECT_EQ(checkError(writeSpecs(dir, wrongDtype, "f16", "embryo"), config,
                       WeightFormat::F16),
            "tensor 'layers.0.gdn.qkv' has dtype F32, expected F16");

  std::vector<TensorSpec> wrongShape = good;
  wrongShape[2].shape = {72, 68};
  EXPECT_EQ(checkError(writeSpecs(dir, wrongShape, "f16", "embryo"), config,
                       WeightFormat::F16),
            "tensor 'layers.0.gdn.qkv' has shape [72, 68], expected [68, 72]");

  std::vector<TensorSpec> extra = good;
  extra.push_back({"layers.9.stray", DType::F32, {1}, "", TensorPart::Whole});
  EXPECT_EQ(checkError(writeSpecs(dir, extra, "f16", "embryo"), config,
                       WeightFormat::F16),
            "unexpected tensor 'layers.9.stray' (not in the config's weight list)");

  EXPECT_EQ(checkError(writeSpecs(dir, good, "f16", "embryo"), config,
                       WeightFormat::Q8_2F),
            "weights are f16 but q8_2f was expected");
  EXPECT_EQ(checkError(writeSpecs(dir, good, "f16", "dory"), config,
                       WeightFormat::F16),
            "weights are for family \"dory\" but the config is \"embryo\"");
  EXPECT_EQ(checkError(writeSpecs(dir, good, "", "embryo"), config,
                       WeightFormat::F16),
            "no \"kiln.format\" in __metadata__ (not written by Kiln?)");
  EXPECT_EQ(checkError(writeSpecs(dir, good, "q4", "embryo"), config,
                       WeightFormat::F16),
            "kiln.format: unknown weight format \"q4\" (expected \"f16\" or "
            "\"q8_2f\")");
}

} // namespace
