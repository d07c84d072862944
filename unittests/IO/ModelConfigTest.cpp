//===- ModelConfigTest.cpp - Config parsing and every validation rule -----===//
#include "kiln/IO/ModelConfig.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

using namespace kiln::io;
using json = nlohmann::json;

namespace {

json exampleJson(const std::string &name) {
  return json::parse(test::readBytes(test::examplePath(name)));
}

/// The error of parsing `base` with `patch` merged in (RFC 7386: null removes).
std::string errorAfterPatch(const std::string &example, const json &patch) {
  json config = exampleJson(example);
  config.merge_patch(patch);
  Expected<ModelConfig> parsed = parseModelConfig(config.dump());
  if (parsed)
    return "<parsed>";
  return parsed.error().message();
}

TEST(ModelConfig, EmbryoTinyParses) {
  Expected<ModelConfig> config =
      loadModelConfig(test::examplePath("embryo-tiny.json"));
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_TRUE(config->isEmbryo());
  EXPECT_EQ(config->name, "embryo-tiny");
  EXPECT_EQ(config->hiddenSize, 72); // not a multiple of 32: allowed
  EXPECT_EQ(config->vocabSize, 256);
  EXPECT_EQ(config->numLayers(), 4);
  const EmbryoConfig &embryo = config->embryo;
  EXPECT_TRUE(embryo.isGdnLayer(0));
  EXPECT_TRUE(embryo.isAnchorLayer(1));
  EXPECT_FALSE(embryo.isAnchorLayer(4));
  ASSERT_TRUE(embryo.gdn);
  EXPECT_EQ(embryo.gdn->numVHeads, 3); // odd head count: allowed
  EXPECT_EQ(embryo.gdn->convDim(), 2 * 1 * 16 + 3 * 12);
  EXPECT_EQ(embryo.gdn->valueDim(), 36);
  EXPECT_EQ(embryo.gdn->kHeadForVHead(2), 0);
  ASSERT_TRUE(embryo.anchor);
  EXPECT_EQ(embryo.anchor->qHeadsPerKvHead(), 3); // 3 query heads per KV head
  EXPECT_EQ(embryo.anchor->kvHeadForQHead(2), 0);
  EXPECT_EQ(embryo.anchor->kvHeadForQHead(3), 1);
  EXPECT_EQ(embryo.anchor->windowForKvHead(0), 16);
  EXPECT_EQ(embryo.anchor->windowForKvHead(1), 6);
  EXPECT_FALSE(embryo.isMoeLayer(0));
  EXPECT_TRUE(embryo.isMoeLayer(1));
  EXPECT_TRUE(embryo.isMoeLayer(2));
  ASSERT_TRUE(embryo.moe);
  EXPECT_TRUE(embryo.moe->growthShells);
  EXPECT_TRUE(embryo.zeroCenteredNorm);
}

TEST(ModelConfig, DoryTinyParses) {
  Expected<ModelConfig> config =
      loadModelConfig(test::examplePath("dory-tiny.json"));
  ASSERT_TRUE(config) << config.error().message();
  EXPECT_TRUE(config->isDory());
  const DoryConfig &dory = config->dory;
  EXPECT_EQ(dory.numLayers, 2);
  EXPECT_EQ(dory.qHeadsPerKvHead(), 3);
  EXPECT_EQ(dory.window, 8);
  EXPECT_EQ(dory.loop.passes, 2);
  ASSERT_TRUE(dory.loop.exitThreshold);
  EXPECT_DOUBLE_EQ(*dory.loop.exitThreshold, 0.9);
  ASSERT_TRUE(dory.farField);
  EXPECT_EQ(dory.farField->landmarks, 4);
  EXPECT_TRUE(dory.farField->rectify);
}

TEST(ModelConfig, LargeExamplesParse) {
  for (const char *name : {"embryo-1b.json", "dory-1b.json"}) {
    Expected<ModelConfig> config = loadModelConfig(test::examplePath(name));
    EXPECT_TRUE(config) << name << ": " << config.error().message();
  }
}

TEST(ModelConfig, DefaultsAreFilledIn) {
  json config = exampleJson("dory-tiny.json");
  config.erase("attn_scale");
  config.erase("rms_norm_eps");
  config.erase("max_position");
  config.erase("far_field");
  config["loop"].erase("exit_threshold");
  Expected<ModelConfig> parsed = parseModelConfig(config.dump());
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_DOUBLE_EQ(parsed->dory.attnScale, 4.0); // sqrt(head_dim 16)
  EXPECT_DOUBLE_EQ(parsed->rmsNormEps, 1e-6);
  EXPECT_EQ(parsed->maxPosition, 4096);
  EXPECT_FALSE(parsed->dory.farField);
  EXPECT_FALSE(parsed->dory.loop.exitThreshold);

  json embryo = exampleJson("embryo-tiny.json");
  embryo.erase("zero_centered_norm");
  embryo["moe"] = nullptr;
  embryo["anchor"]["group_windows"] = nullptr;
  Expected<ModelConfig> parsedEmbryo = parseModelConfig(embryo.dump());
  ASSERT_TRUE(parsedEmbryo) << parsedEmbryo.error().message();
  EXPECT_TRUE(parsedEmbryo->embryo.zeroCenteredNorm);
  EXPECT_FALSE(parsedEmbryo->embryo.moe);
  EXPECT_TRUE(parsedEmbryo->embryo.anchor->groupWindows.empty());
  EXPECT_EQ(parsedEmbryo->embryo.anchor->windowForKvHead(1), 16);
}

TEST(ModelConfig, ToJsonRoundTrips) {
  for (const char *name : {"embryo-tiny.json", "dory-tiny.json",
                           "embryo-1b.json", "dory-1b.json"}) {
    Expected<ModelConfig> config = loadModelConfig(test::examplePath(name));
    ASSERT_TRUE(config);
    std::string text = toJson(*config);
    Expected<ModelConfig> again = parseModelConfig(text);
    ASSERT_TRUE(again) << name << ": " << again.error().message();
    EXPECT_EQ(toJson(*again), text) << name;
    // Same JSON object as the example, once defaults are spelled out.
    json original = exampleJson(name);
    json printed = json::parse(text);
    for (auto it = original.begin(); it != original.end(); ++it)
      EXPECT_EQ(printed[it.key()], it.value()) << name << " key " << it.key();
  }
}

// Dory's num_sinks (issue 15): optional, 0 by default, and written by toJson
// only when above 0 so configs without sinks print (and compile) as before.
TEST(ModelConfig, DoryNumSinks) {
  json config = exampleJson("dory-tiny.json");
  Expected<ModelConfig> plain = parseModelConfig(config.dump());
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->dory.numSinks, 0);
  EXPECT_EQ(toJson(*plain).find("num_sinks"), std::string::npos);
  config["num_sinks"] = 0;
  Expected<ModelConfig> zero = parseModelConfig(config.dump());
  ASSERT_TRUE(zero);
  EXPECT_EQ(toJson(*zero), toJson(*plain));
  config["num_sinks"] = 3;
  Expected<ModelConfig> three = parseModelConfig(config.dump());
  ASSERT_TRUE(three) << three.error().message();
  EXPECT_EQ(three->dory.numSinks, 3);
  Expected<ModelConfig> again = parseModelConfig(toJson(*three));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->dory.numSinks, 3);
}

TEST(ModelConfig, FileErrorsNameThePath) {
  Expected<ModelConfig> missing = loadModelConfig("/nonexistent/c.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(),
            "/nonexistent/c.json: cannot open config file");
}

TEST(ModelConfig, SyntaxErrors) {
  Expected<ModelConfig> bad = parseModelConfig("{\"family\": ");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "config: not valid JSON");
  Expected<ModelConfig> array = parseModelConfig("[1, 2]");
  ASSERT_FALSE(array);
  EXPECT_EQ(array.error().message(),
            "config: the top level must be a JSON object");
}

struct RuleCase {
  const char *example;
  const char *patch;
  const char *message;
};

class ModelConfigRule : public ::testing::TestWithParam<RuleCase> {};

TEST_P(ModelConfigRule, NamesFieldAndRule) {
  const RuleCase &rule = GetParam();
  EXPECT_EQ(errorAfterPatch(rule.example, json::parse(rule.patch)),
            rule.message);
}

const RuleCase kRuleCases[] = {
    // Common fields.
    {"embryo-tiny.json", R"({"family": "llama"})",
     "config: family: unknown model family \"llama\" (expected \"embryo\" or \"dory\")"},
    {"embryo-tiny.json", R"({"family": null})",
     "config: family is missing (required)"},
    {"embryo-tiny.json", R"({"hidden_size": 0})",
     "config: hidden_size (0) must be >= 1"},
    {"embryo-tiny.json", R"({"hidden_size": "72"})",
     "config: hidden_size must be an integer, got \"72\""},
    {"embryo-tiny.json", R"({"hidden_size": 72.5})",
     "config: hidden_size must be an integer, got 72.5"},
    {"embryo-tiny.json", R"({"hidden_size": 4294967296})",
     "config: hidden_size (4294967296) is out of range (|value| < 2^31)"},
    {"embryo-tiny.json", R"({"intermediate_size": 0})",
     "config: intermediate_size (0) must be >= 1"},
    {"embryo-tiny.json", R"({"vocab_size": null})",
     "config: vocab_size is missing (required)"},
    {"embryo-tiny.json", R"({"vocab_size": 1, "num_clusters": 1, "cluster_size": 1})",
     "config: vocab_size (1) must be >= 2"},
    {"embryo-tiny.json", R"({"rms_norm_eps": -1})",
     "config: rms_norm_eps (-1) must be a finite number > 0"},
    {"embryo-tiny.json", R"({"max_position": 0})",
     "config: max_position (0) must be >= 1"},
    {"embryo-tiny.json", R"({"hiden_size": 72})",
     "config: unknown key hiden_size"},
    {"embryo-tiny.json", R"({"name": 3})",
     "config: name must be a string, got 3"},
    // Embryo.
    {"embryo-tiny.json", R"({"num_clusters": 15})",
     "config: num_clusters (15) * cluster_size (16) = 240 must equal vocab_size (256)"},
    {"embryo-tiny.json", R"({"zero_centered_norm": 1})",
     "config: zero_centered_norm must be true or false, got 1"},
    {"embryo-tiny.json", R"({"layer_types": []})",
     "config: layer_types must list at least one layer"},
    {"embryo-tiny.json", R"({"layer_types": ["gdn", "mamba"]})",
     "config: layer_types[1] must be \"gdn\" or \"anchor\", got \"mamba\""},
    {"embryo-tiny.json", R"({"layer_types": "gdn"})",
     "config: layer_types must be a list of \"gdn\" | \"anchor\", got \"gdn\""},
    {"embryo-tiny.json", R"({"gdn": null})",
     "config: gdn is missing (required: layer_types[0] is \"gdn\")"},
    {"embryo-tiny.json", R"({"anchor": null})",
     "config: anchor is missing (required: layer_types[1] is \"anchor\")"},
    {"embryo-tiny.json", R"({"gdn": {"num_v_heads": 4, "num_k_heads": 3}})",
     "config: gdn.num_v_heads (4) must be a multiple of gdn.num_k_heads (3)"},
    {"embryo-tiny.json", R"({"gdn": {"num_k_heads": 0}})",
     "config: gdn.num_k_heads (0) must be >= 1"},
    {"embryo-tiny.json", R"({"gdn": {"head_k_dim": 0}})",
     "config: gdn.head_k_dim (0) must be >= 1"},
    {"embryo-tiny.json", R"({"gdn": {"head_v_dim": 0}})",
     "config: gdn.head_v_dim (0) must be >= 1"},
    {"embryo-tiny.json", R"({"gdn": {"conv_kernel": 0}})",
     "config: gdn.conv_kernel (0) must be >= 1"},
    {"embryo-tiny.json", R"({"gdn": {"conv_kernal": 4}})",
     "config: unknown key gdn.conv_kernal"},
    {"embryo-tiny.json", R"({"gdn": 4})",
     "config: gdn must be an object, got 4"},
    {"embryo-tiny.json", R"({"anchor": {"num_q_heads": 6, "num_kv_heads": 4, "group_windows": null}})",
     "config: anchor.num_q_heads (6) must be a multiple of anchor.num_kv_heads (4)"},
    {"embryo-tiny.json", R"({"anchor": {"head_dim": 0, "rotary_dim": 0}})",
     "config: anchor.head_dim (0) must be >= 1"},
    {"embryo-tiny.json", R"({"anchor": {"rotary_dim": 7}})",
     "config: anchor.rotary_dim (7) must be a multiple of 2"},
    {"embryo-tiny.json", R"({"anchor": {"rotary_dim": 20}})",
     "config: anchor.rotary_dim (20) must be in 0..16"},
    {"embryo-tiny.json", R"({"anchor": {"rope_theta": 0}})",
     "config: anchor.rope_theta (0) must be a finite number > 0"},
    {"embryo-tiny.json", R"({"anchor": {"window": 0}})",
     "config: anchor.window (0) must be >= 1"},
    {"embryo-tiny.json", R"({"anchor": {"num_sinks": -1}})",
     "config: anchor.num_sinks (-1) must be >= 0"},
    {"embryo-tiny.json", R"({"anchor": {"group_windows": [16, 6, 4]}})",
     "config: anchor.group_windows has 3 entries but anchor.num_kv_heads is 2 (one window per KV head)"},
    {"embryo-tiny.json", R"({"anchor": {"group_windows": [16, 17]}})",
     "config: anchor.group_windows[1] (17) must be in 1..16"},
    {"embryo-tiny.json", R"({"anchor": {"group_windows": [0, 6]}})",
     "config: anchor.group_windows[0] (0) must be in 1..16"},
    {"embryo-tiny.json", R"({"anchor": {"group_windows": [16, "6"]}})",
     "config: anchor.group_windows[1] must be an integer below 2^31, got \"6\""},
    {"embryo-tiny.json", R"({"anchor": {"windw": 16}})",
     "config: unknown key anchor.windw"},
    {"embryo-tiny.json", R"({"moe": {"num_experts": 0}})",
     "config: moe.num_experts (0) must be >= 1"},
    {"embryo-tiny.json", R"({"moe": {"rank": 73}})",
     "config: moe.rank (73) must be in 0..72"},
    {"embryo-tiny.json", R"({"moe": {"layers": [4]}})",
     "config: moe.layers[0] (4) must be in 0..3"},
    {"embryo-tiny.json", R"({"moe": {"layers": [2, 1]}})",
     "config: moe.layers[1] (1) must be greater than the previous entry (2): layers are listed once, ascending"},
    {"embryo-tiny.json", R"({"moe": {"layers": []}})",
     "config: moe.layers must not be empty (use \"moe\": null for no MoE)"},
    {"embryo-tiny.json", R"({"moe": {"growth_shells": null}})",
     "config: moe.growth_shells is missing (required)"},
    {"embryo-tiny.json", R"({"num_layers": 2})",
     "config: unknown key num_layers"},
    // Dory.
    {"dory-tiny.json", R"({"num_q_heads": 6, "num_kv_heads": 4})",
     "config: num_q_heads (6) must be a multiple of num_kv_heads (4)"},
    {"dory-tiny.json", R"({"num_layers": 0})",
     "config: num_layers (0) must be >= 1"},
    {"dory-tiny.json", R"({"head_dim": 13})",
     "config: head_dim (13) must be a multiple of 2"},
    {"dory-tiny.json", R"({"head_dim": 0})",
     "config: head_dim (0) must be >= 2"},
    {"dory-tiny.json", R"({"window": 0})",
     "config: window (0) must be >= 1"},
    {"dory-tiny.json", R"({"rope_theta": -5})",
     "config: rope_theta (-5) must be a finite number > 0"},
    {"dory-tiny.json", R"({"attn_scale": -1})",
     "config: attn_scale (-1) must be a finite number > 0"},
    {"dory-tiny.json", R"({"loop": null})",
     "config: loop is missing (required)"},
    {"dory-tiny.json", R"({"loop": {"passes": 0}})",
     "config: loop.passes (0) must be >= 1"},
    {"dory-tiny.json", R"({"num_sinks": -1})",
     "config: num_sinks (-1) must be >= 0"},
    {"dory-tiny.json", R"({"num_sinks": 1025})",
     "config: num_sinks (1025) exceeds Kiln's limit 1024"},
    {"dory-tiny.json", R"({"num_sinks": 2.0})",
     "config: num_sinks must be an integer, got 2.0"},
    // Kiln's size limits: refused by name before anything is allocated (the
    // first two once drove kiln-synth to bad_alloc, the third hung kiln-ref).
    {"dory-tiny.json", R"({"num_layers": 2147483647})",
     "config: num_layers (2147483647) exceeds Kiln's limit 1024"},
    {"embryo-tiny.json", R"({"gdn": {"conv_kernel": 2147483647}})",
     "config: gdn.conv_kernel (2147483647) exceeds Kiln's limit 64"},
    {"dory-tiny.json", R"({"loop": {"passes": 2147483647}})",
     "config: loop.passes (2147483647) exceeds Kiln's limit 64"},
    {"dory-tiny.json", R"({"vocab_size": 2147483647})",
     "config: vocab_size (2147483647) exceeds Kiln's limit 16777216"},
    {"dory-tiny.json", R"({"hidden_size": 65536, "intermediate_size": 65536, "num_layers": 1024})",
     "config: the config has 13218064040192 weight parameters, more than Kiln's limit 2^36 (68719476736)"},
    {"dory-tiny.json", R"({"loop": {"exit_threshold": 1.5}})",
     "config: loop.exit_threshold (1.5) must be in (0, 1]"},
    {"dory-tiny.json", R"({"loop": {"exit_threshold": 0}})",
     "config: loop.exit_threshold (0) must be in (0, 1]"},
    {"dory-tiny.json", R"({"loop": {"max_passes": 3}})",
     "config: unknown key loop.max_passes"},
    {"dory-tiny.json", R"({"far_field": {"landmarks": 33}})",
     "config: far_field.landmarks (33) must be in 1..32"},
    {"dory-tiny.json", R"({"far_field": {"landmarks": 0}})",
     "config: far_field.landmarks (0) must be in 1..32"},
    {"dory-tiny.json", R"({"far_field": {"rectify": null}})",
     "config: far_field.rectify is missing (required)"},
    {"dory-tiny.json", R"({"layer_types": ["gdn"]})",
     "config: unknown key layer_types"},
};

INSTANTIATE_TEST_SUITE_P(Rules, ModelConfigRule, ::testing::ValuesIn(kRuleCases));

TEST(ModelConfig, ValidateCatchesInMemoryConfigs) {
  Expected<ModelConfig> config =
      loadModelConfig(test::examplePath("embryo-tiny.json"));
  ASSERT_TRUE(config);
  ModelConfig broken = *config;
  broken.embryo.anchor->numKvHeads = 4;
  broken.embryo.anchor->groupWindows.clear();
  Status status = validateModelConfig(broken);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message(),
            "config: anchor.num_q_heads (6) must be a multiple of "
            "anchor.num_kv_heads (4)");
}

} // namespace
