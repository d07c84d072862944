//===- ModelConfig.cpp - Parse, validate and print model configs ----------===//
//
// Reading and checking are two steps: FieldReader turns JSON into the structs
// (types, presence, unknown keys), then validateModelConfig checks the rules
// of docs/config.md, so a config built in code is checked the same way.
//
//===----------------------------------------------------------------------===//
#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/TextFile.h"
#include "kiln/IO/WeightSpec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace kiln::io {

using json = nlohmann::json;

const char *modelFamilyName(ModelFamily family) {
  return family == ModelFamily::Embryo ? "embryo" : "dory";
}

Expected<ModelFamily> parseModelFamily(const std::string &text) {
  if (text == "embryo")
    return ModelFamily::Embryo;
  if (text == "dory")
    return ModelFamily::Dory;
  return Error("unknown model family \"" + text +
               "\" (expected \"embryo\" or \"dory\")");
}

const char *embryoLayerTypeName(EmbryoLayerType type) {
  return type == EmbryoLayerType::Gdn ? "gdn" : "anchor";
}

bool EmbryoConfig::isGdnLayer(int64_t layer) const {
  return layer >= 0 && layer < numLayers() &&
         layerTypes[static_cast<size_t>(layer)] == EmbryoLayerType::Gdn;
}

bool EmbryoConfig::isAnchorLayer(int64_t layer) const {
  return layer >= 0 && layer < numLayers() &&
         layerTypes[static_cast<size_t>(layer)] == EmbryoLayerType::Anchor;
}

bool EmbryoConfig::isMoeLayer(int64_t layer) const {
  return moe && std::find(moe->layers.begin(), moe->layers.end(), layer) !=
                    moe->layers.end();
}

namespace {

Error configError(const std::string &message) {
  return Error("config: " + message);
}

std::string formatNumber(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

/// Reads the fields of one JSON object, remembering which keys were read so
/// that the rest can be reported as unknown. The first failure sticks.
class FieldReader {
public:
  FieldReader(const json &object, std::string prefix)
      : object_(object), prefix_(std::move(prefix)) {}

  std::string path(const std::string &key) const { return prefix_ + key; }
  bool failed() const { return failed_; }
  const Error &error() const { return error_; }

  /// True when `key` is present and not null (and marks it read).
  bool has(const std::string &key) {
    seen_.insert(key);
    auto it = object_.find(key);
    return it != object_.end() && !it->is_null();
  }

  const json *get(const std::string &key, bool required) {
    seen_.insert(key);
    auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) {
      if (required)
        fail(path(key) + " is missing (required)");
      return nullptr;
    }
    return &*it;
  }

  void readInt(const std::string &key, int64_t &out, bool required = true) {
    const json *value = get(key, required);
    if (!value)
      return;
    if (!value->is_number_integer()) {
      fail(path(key) + " must be an integer, got " + value->dump());
      return;
    }
    if (!fitsSize(*value)) {
      fail(path(key) + " (" + value->dump() + ") is out of range (|value| < 2^31)");
      return;
    }
    out = value->get<int64_t>();
  }

  /// Sizes stay far below 2^31 so that their products fit in int64_t.
  static bool fitsSize(const json &value) {
    if (value.is_number_unsigned())
      return value.get<uint64_t>() < (1ull << 31);
    int64_t number = value.get<int64_t>();
    return number > -(int64_t(1) << 31) && number < (int64_t(1) << 31);
  }

  void readDouble(const std::string &key, double &out, bool required = true) {
    const json *value = get(key, required);
    if (!value)
      return;
    if (!value->is_number()) {
      fail(path(key) + " must be a number, got " + value->dump());
      return;
    }
    out = value->get<double>();
  }

  void readOptionalDouble(const std::string &key, std::optional<double> &out) {
    double number = 0;
    if (!has(key)) {
      out.reset();
      return;
    }
    readDouble(key, number);
    out = number;
  }

  void readBool(const std::string &key, bool &out, bool required = true) {
    const json *value = get(key, required);
    if (!value)
      return;
    if (!value->is_boolean()) {
      fail(path(key) + " must be true or false, got " + value->dump());
      return;
    }
    out = value->get<bool>();
  }

  void readString(const std::string &key, std::string &out,
                  bool required = true) {
    const json *value = get(key, required);
    if (!value)
      return;
    if (!value->is_string()) {
      fail(path(key) + " must be a string, got " + value->dump());
      return;
    }
    out = value->get<std::string>();
  }

  void readIntList(const std::string &key, std::vector<int64_t> &out,
                   bool required = true) {
    const json *value = get(key, required);
    if (!value)
      return;
    if (!value->is_array()) {
      fail(path(key) + " must be a list of integers, got " + value->dump());
      return;
    }
    out.clear();
    for (size_t i = 0; i < value->size(); ++i) {
      const json &item = (*value)[i];
      if (!item.is_number_integer() || !fitsSize(item)) {
        fail(path(key) + "[" + std::to_string(i) +
             "] must be an integer below 2^31, got " + item.dump());
        return;
      }
      out.push_back(item.get<int64_t>());
    }
  }

  /// The nested object at `key` (null when absent/null and not required).
  const json *readObject(const std::string &key, bool required) {
    const json *value = get(key, required);
    if (!value)
      return nullptr;
    if (!value->is_object()) {
      fail(path(key) + " must be an object, got " + value->dump());
      return nullptr;
    }
    return value;
  }

  /// Fails on the first key that was never read.
  void rejectUnknownKeys() {
    if (failed_)
      return;
    for (auto it = object_.begin(); it != object_.end(); ++it)
      if (!seen_.count(it.key())) {
        fail("unknown key " + path(it.key()));
        return;
      }
  }

  /// Takes over a nested reader's failure.
  void absorb(const FieldReader &nested) {
    if (nested.failed_ && !failed_) {
      failed_ = true;
      error_ = nested.error_;
    }
  }

  void fail(const std::string &message) {
    if (failed_)
      return;
    failed_ = true;
    error_ = configError(message);
  }

private:
  const json &object_;
  std::string prefix_;
  std::set<std::string> seen_;
  bool failed_ = false;
  Error error_;
};

void readGdn(FieldReader &parent, const json &object, GdnConfig &gdn) {
  FieldReader reader(object, "gdn.");
  reader.readInt("num_v_heads", gdn.numVHeads);
  reader.readInt("num_k_heads", gdn.numKHeads);
  reader.readInt("head_k_dim", gdn.headKDim);
  reader.readInt("head_v_dim", gdn.headVDim);
  reader.readInt("conv_kernel", gdn.convKernel);
  reader.rejectUnknownKeys();
  parent.absorb(reader);
}

void readAnchor(FieldReader &parent, const json &object, AnchorConfig &anchor) {
  FieldReader reader(object, "anchor.");
  reader.readInt("num_q_heads", anchor.numQHeads);
  reader.readInt("num_kv_heads", anchor.numKvHeads);
  reader.readInt("head_dim", anchor.headDim);
  reader.readInt("rotary_dim", anchor.rotaryDim);
  reader.readDouble("rope_theta", anchor.ropeTheta);
  reader.readInt("window", anchor.window);
  reader.readInt("num_sinks", anchor.numSinks);
  anchor.groupWindows.clear();
  reader.readIntList("group_windows", anchor.groupWindows, /*required=*/false);
  reader.rejectUnknownKeys();
  parent.absorb(reader);
}

void readMoe(FieldReader &parent, const json &object, MoeConfig &moe) {
  FieldReader reader(object, "moe.");
  reader.readIntList("layers", moe.layers);
  reader.readInt("num_experts", moe.numExperts);
  reader.readInt("rank", moe.rank);
  reader.readBool("growth_shells", moe.growthShells);
  reader.rejectUnknownKeys();
  parent.absorb(reader);
}

void readEmbryo(FieldReader &reader, const json &root, EmbryoConfig &embryo) {
  reader.readInt("num_clusters", embryo.numClusters);
  reader.readInt("cluster_size", embryo.clusterSize);
  reader.readBool("zero_centered_norm", embryo.zeroCenteredNorm,
                  /*required=*/false);

  if (const json *types = reader.get("layer_types", /*required=*/true)) {
    if (!types->is_array()) {
      reader.fail("layer_types must be a list of \"gdn\" | \"anchor\", got " +
                  types->dump());
    } else {
      for (size_t i = 0; i < types->size(); ++i) {
        const json &item = (*types)[i];
        std::string where = "layer_types[" + std::to_string(i) + "]";
        if (item == "gdn")
          embryo.layerTypes.push_back(EmbryoLayerType::Gdn);
        else if (item == "anchor")
          embryo.layerTypes.push_back(EmbryoLayerType::Anchor);
        else {
          reader.fail(where + " must be \"gdn\" or \"anchor\", got " +
                      item.dump());
          break;
        }
      }
    }
  }

  if (const json *gdn = reader.readObject("gdn", /*required=*/false)) {
    embryo.gdn.emplace();
    readGdn(reader, *gdn, *embryo.gdn);
  }
  if (const json *anchor = reader.readObject("anchor", /*required=*/false)) {
    embryo.anchor.emplace();
    readAnchor(reader, *anchor, *embryo.anchor);
  }
  if (const json *moe = reader.readObject("moe", /*required=*/false)) {
    embryo.moe.emplace();
    readMoe(reader, *moe, *embryo.moe);
  }
  (void)root;
}

void readDory(FieldReader &reader, DoryConfig &dory) {
  reader.readInt("num_layers", dory.numLayers);
  reader.readInt("num_q_heads", dory.numQHeads);
  reader.readInt("num_kv_heads", dory.numKvHeads);
  reader.readInt("head_dim", dory.headDim);
  reader.readDouble("rope_theta", dory.ropeTheta);
  reader.readInt("window", dory.window);
  dory.numSinks = 0;
  reader.readInt("num_sinks", dory.numSinks, /*required=*/false);
  dory.attnScale = 0.0;
  reader.readDouble("attn_scale", dory.attnScale, /*required=*/false);

  if (const json *loop = reader.readObject("loop", /*required=*/true)) {
    FieldReader loopReader(*loop, "loop.");
    loopReader.readInt("passes", dory.loop.passes);
    loopReader.readOptionalDouble("exit_threshold", dory.loop.exitThreshold);
    loopReader.rejectUnknownKeys();
    reader.absorb(loopReader);
  }
  if (const json *far = reader.readObject("far_field", /*required=*/false)) {
    dory.farField.emplace();
    FieldReader farReader(*far, "far_field.");
    farReader.readInt("landmarks", dory.farField->landmarks);
    farReader.readBool("rectify", dory.farField->rectify);
    farReader.rejectUnknownKeys();
    reader.absorb(farReader);
  }
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

/// Collects the first broken rule; later checks are skipped once one failed.
class RuleChecker {
public:
  bool failed() const { return failed_; }
  Status status() const {
    if (failed_)
      return error_;
    return Status::success();
  }

  void fail(const std::string &message) {
    if (!failed_) {
      failed_ = true;
      error_ = configError(message);
    }
  }

  void atLeast(const std::string &field, int64_t value, int64_t minimum) {
    if (!failed_ && value < minimum)
      fail(field + " (" + std::to_string(value) + ") must be >= " +
           std::to_string(minimum));
  }

  /// value >= minimum, then <= Kiln's limit `maximum` (docs/config.md).
  void bounded(const std::string &field, int64_t value, int64_t minimum,
               int64_t maximum) {
    atLeast(field, value, minimum);
    if (!failed_ && value > maximum)
      fail(field + " (" + std::to_string(value) + ") exceeds Kiln's limit " +
           std::to_string(maximum));
  }

  void inRange(const std::string &field, int64_t value, int64_t low,
               int64_t high) {
    if (!failed_ && (value < low || value > high))
      fail(field + " (" + std::to_string(value) + ") must be in " +
           std::to_string(low) + ".." + std::to_string(high));
  }

  void multipleOf(const std::string &field, int64_t value, int64_t factor) {
    if (!failed_ && value % factor != 0)
      fail(field + " (" + std::to_string(value) + ") must be a multiple of " +
           std::to_string(factor));
  }

  void multipleOfField(const std::string &field, int64_t value,
                       const std::string &factorField, int64_t factor) {
    if (!failed_ && factor > 0 && value % factor != 0)
      fail(field + " (" + std::to_string(value) + ") must be a multiple of " +
           factorField + " (" + std::to_string(factor) + ")");
  }

  void positiveFinite(const std::string &field, double value) {
    if (!failed_ && !(std::isfinite(value) && value > 0))
      fail(field + " (" + formatNumber(value) + ") must be a finite number > 0");
  }

private:
  bool failed_ = false;
  Error error_;
};

// Kiln's size limits (docs/config.md): a config is untrusted input, and sizes whose
// products overflow, or that no device could hold, are refused by name before anything
// is allocated. Each is far above the largest model Kiln targets.
constexpr int64_t kMaxWidth = 1 << 16;        // hidden, intermediate sizes
constexpr int64_t kMaxVocab = 1 << 24;        // vocab_size, num_clusters, cluster_size
constexpr int64_t kMaxPosition = 1 << 24;     // max_position, windows
constexpr int64_t kMaxLayers = 1024;          // num_layers, layer_types
constexpr int64_t kMaxHeads = 1024;           // heads of every kind, experts, sinks
constexpr int64_t kMaxHeadDim = 4096;         // head dims
constexpr int64_t kMaxConvKernel = 64;        // gdn.conv_kernel
constexpr int64_t kMaxPasses = 64;            // loop.passes
constexpr int64_t kMaxParameters = 1ll << 36; // all weights: ~137 GB at f16

void checkGdn(RuleChecker &rules, const GdnConfig &gdn) {
  rules.bounded("gdn.num_v_heads", gdn.numVHeads, 1, kMaxHeads);
  rules.bounded("gdn.num_k_heads", gdn.numKHeads, 1, kMaxHeads);
  rules.bounded("gdn.head_k_dim", gdn.headKDim, 1, kMaxHeadDim);
  rules.bounded("gdn.head_v_dim", gdn.headVDim, 1, kMaxHeadDim);
  rules.bounded("gdn.conv_kernel", gdn.convKernel, 1, kMaxConvKernel);
  rules.multipleOfField("gdn.num_v_heads", gdn.numVHeads, "gdn.num_k_heads",
                        gdn.numKHeads);
}

void checkAnchor(RuleChecker &rules, const AnchorConfig &anchor) {
  rules.bounded("anchor.num_q_heads", anchor.numQHeads, 1, kMaxHeads);
  rules.bounded("anchor.num_kv_heads", anchor.numKvHeads, 1, kMaxHeads);
  rules.bounded("anchor.head_dim", anchor.headDim, 1, kMaxHeadDim);
  rules.bounded("anchor.window", anchor.window, 1, kMaxPosition);
  rules.bounded("anchor.num_sinks", anchor.numSinks, 0, kMaxHeads);
  rules.multipleOfField("anchor.num_q_heads", anchor.numQHeads,
                        "anchor.num_kv_heads", anchor.numKvHeads);
  rules.inRange("anchor.rotary_dim", anchor.rotaryDim, 0, anchor.headDim);
  rules.multipleOf("anchor.rotary_dim", anchor.rotaryDim, 2);
  rules.positiveFinite("anchor.rope_theta", anchor.ropeTheta);
  if (rules.failed() || anchor.groupWindows.empty())
    return;
  if (static_cast<int64_t>(anchor.groupWindows.size()) != anchor.numKvHeads) {
    rules.fail("anchor.group_windows has " +
               std::to_string(anchor.groupWindows.size()) +
               " entries but anchor.num_kv_heads is " +
               std::to_string(anchor.numKvHeads) + " (one window per KV head)");
    return;
  }
  for (size_t i = 0; i < anchor.groupWindows.size(); ++i)
    rules.inRange("anchor.group_windows[" + std::to_string(i) + "]",
                  anchor.groupWindows[i], 1, anchor.window);
}

void checkMoe(RuleChecker &rules, const MoeConfig &moe, int64_t numLayers,
              int64_t hiddenSize) {
  rules.bounded("moe.num_experts", moe.numExperts, 1, kMaxHeads);
  rules.inRange("moe.rank", moe.rank, 0, hiddenSize);
  if (rules.failed())
    return;
  if (moe.layers.empty()) {
    rules.fail("moe.layers must not be empty (use \"moe\": null for no MoE)");
    return;
  }
  for (size_t i = 0; i < moe.layers.size(); ++i) {
    std::string field = "moe.layers[" + std::to_string(i) + "]";
    rules.inRange(field, moe.layers[i], 0, numLayers - 1);
    if (i > 0 && !rules.failed() && moe.layers[i] <= moe.layers[i - 1])
      rules.fail(field + " (" + std::to_string(moe.layers[i]) +
                 ") must be greater than the previous entry (" +
                 std::to_string(moe.layers[i - 1]) +
                 "): layers are listed once, ascending");
  }
}

void checkEmbryo(RuleChecker &rules, const ModelConfig &config) {
  const EmbryoConfig &embryo = config.embryo;
  rules.bounded("num_clusters", embryo.numClusters, 1, kMaxVocab);
  rules.bounded("cluster_size", embryo.clusterSize, 1, kMaxVocab);
  if (!rules.failed() && embryo.numLayers() > kMaxLayers)
    rules.fail("layer_types lists " + std::to_string(embryo.numLayers()) +
               " layers, more than Kiln's limit " + std::to_string(kMaxLayers));
  if (!rules.failed() &&
      embryo.numClusters * embryo.clusterSize != config.vocabSize)
    rules.fail("num_clusters (" + std::to_string(embryo.numClusters) +
               ") * cluster_size (" + std::to_string(embryo.clusterSize) +
               ") = " + std::to_string(embryo.numClusters * embryo.clusterSize) +
               " must equal vocab_size (" + std::to_string(config.vocabSize) +
               ")");
  if (!rules.failed() && embryo.layerTypes.empty())
    rules.fail("layer_types must list at least one layer");
  if (rules.failed())
    return;

  for (int64_t layer = 0; layer < embryo.numLayers(); ++layer) {
    EmbryoLayerType type = embryo.layerTypes[static_cast<size_t>(layer)];
    bool missing = type == EmbryoLayerType::Gdn ? !embryo.gdn : !embryo.anchor;
    if (missing) {
      const char *name = embryoLayerTypeName(type);
      rules.fail(std::string(name) + " is missing (required: layer_types[" +
                 std::to_string(layer) + "] is \"" + name + "\")");
      return;
    }
  }
  if (embryo.gdn)
    checkGdn(rules, *embryo.gdn);
  if (embryo.anchor)
    checkAnchor(rules, *embryo.anchor);
  if (embryo.moe)
    checkMoe(rules, *embryo.moe, embryo.numLayers(), config.hiddenSize);
}

void checkDory(RuleChecker &rules, const DoryConfig &dory) {
  rules.bounded("num_layers", dory.numLayers, 1, kMaxLayers);
  rules.bounded("num_q_heads", dory.numQHeads, 1, kMaxHeads);
  rules.bounded("num_kv_heads", dory.numKvHeads, 1, kMaxHeads);
  rules.bounded("head_dim", dory.headDim, 2, kMaxHeadDim);
  rules.bounded("window", dory.window, 1, kMaxPosition);
  rules.bounded("num_sinks", dory.numSinks, 0, kMaxHeads);
  rules.bounded("loop.passes", dory.loop.passes, 1, kMaxPasses);
  rules.multipleOfField("num_q_heads", dory.numQHeads, "num_kv_heads",
                        dory.numKvHeads);
  // Full rotary on pairs (i, i + head_dim/2): an even head dim.
  rules.multipleOf("head_dim", dory.headDim, 2);
  rules.positiveFinite("rope_theta", dory.ropeTheta);
  rules.positiveFinite("attn_scale", dory.attnScale);
  if (!rules.failed() && dory.loop.exitThreshold) {
    double threshold = *dory.loop.exitThreshold;
    if (!(threshold > 0.0 && threshold <= 1.0))
      rules.fail("loop.exit_threshold (" + formatNumber(threshold) +
                 ") must be in (0, 1]");
  }
  if (dory.farField)
    rules.inRange("far_field.landmarks", dory.farField->landmarks, 1, 32);
}

} // namespace

Status validateModelConfig(const ModelConfig &config) {
  RuleChecker rules;
  rules.bounded("hidden_size", config.hiddenSize, 1, kMaxWidth);
  rules.bounded("intermediate_size", config.intermediateSize, 1, kMaxWidth);
  rules.bounded("vocab_size", config.vocabSize, 2, kMaxVocab);
  rules.positiveFinite("rms_norm_eps", config.rmsNormEps);
  rules.bounded("max_position", config.maxPosition, 1, kMaxPosition);
  if (!rules.failed()) {
    if (config.isEmbryo())
      checkEmbryo(rules, config);
    else
      checkDory(rules, config.dory);
  }
  // Every field is bounded now, so the count cannot overflow.
  if (!rules.failed()) {
    int64_t parameters = parameterCount(config);
    if (parameters > kMaxParameters)
      rules.fail("the config has " + std::to_string(parameters) +
                 " weight parameters, more than Kiln's limit 2^36 (" +
                 std::to_string(kMaxParameters) + ")");
  }
  return rules.status();
}

Expected<ModelConfig> parseModelConfig(const std::string &jsonText) {
  json root = json::parse(jsonText, /*callback=*/nullptr,
                          /*allow_exceptions=*/false);
  if (root.is_discarded())
    return configError("not valid JSON");
  if (!root.is_object())
    return configError("the top level must be a JSON object");

  ModelConfig config;
  FieldReader reader(root, "");
  std::string familyText;
  reader.readString("family", familyText);
  if (reader.failed())
    return reader.error();
  Expected<ModelFamily> family = parseModelFamily(familyText);
  if (!family)
    return configError("family: " + family.error().message());
  config.family = *family;

  reader.readString("name", config.name, /*required=*/false);
  reader.readInt("hidden_size", config.hiddenSize);
  reader.readInt("intermediate_size", config.intermediateSize);
  reader.readInt("vocab_size", config.vocabSize);
  reader.readDouble("rms_norm_eps", config.rmsNormEps, /*required=*/false);
  reader.readInt("max_position", config.maxPosition, /*required=*/false);
  if (config.isEmbryo())
    readEmbryo(reader, root, config.embryo);
  else
    readDory(reader, config.dory);
  reader.rejectUnknownKeys();
  if (reader.failed())
    return reader.error();

  if (config.isDory() && config.dory.attnScale == 0.0 && config.dory.headDim > 0)
    config.dory.attnScale = std::sqrt(static_cast<double>(config.dory.headDim));

  if (Status status = validateModelConfig(config); !status)
    return status.error();
  return config;
}

Expected<ModelConfig> loadModelConfig(const std::string &path) {
  // A config is a few KB (1,024 layer types at most): 4 MiB is generous.
  Expected<std::string> text = readTextFile(path, 4u << 20, "config file");
  if (!text)
    return text.error();
  Expected<ModelConfig> config = parseModelConfig(*text);
  if (!config)
    return config.error().withPrefix(path + ": ");
  return config;
}

std::string toJson(const ModelConfig &config, int indent) {
  json root = json::object();
  root["family"] = modelFamilyName(config.family);
  if (!config.name.empty())
    root["name"] = config.name;
  root["hidden_size"] = config.hiddenSize;
  root["intermediate_size"] = config.intermediateSize;
  root["vocab_size"] = config.vocabSize;
  root["rms_norm_eps"] = config.rmsNormEps;
  root["max_position"] = config.maxPosition;

  if (config.isEmbryo()) {
    const EmbryoConfig &embryo = config.embryo;
    root["num_clusters"] = embryo.numClusters;
    root["cluster_size"] = embryo.clusterSize;
    root["zero_centered_norm"] = embryo.zeroCenteredNorm;
    json types = json::array();
    for (EmbryoLayerType type : embryo.layerTypes)
      types.push_back(embryoLayerTypeName(type));
    root["layer_types"] = types;
    if (embryo.gdn) {
      const GdnConfig &gdn = *embryo.gdn;
      root["gdn"] = {{"num_v_heads", gdn.numVHeads},
                     {"num_k_heads", gdn.numKHeads},
                     {"head_k_dim", gdn.headKDim},
                     {"head_v_dim", gdn.headVDim},
                     {"conv_kernel", gdn.convKernel}};
    }
    if (embryo.anchor) {
      const AnchorConfig &anchor = *embryo.anchor;
      json object = {{"num_q_heads", anchor.numQHeads},
                     {"num_kv_heads", anchor.numKvHeads},
                     {"head_dim", anchor.headDim},
                     {"rotary_dim", anchor.rotaryDim},
                     {"rope_theta", anchor.ropeTheta},
                     {"window", anchor.window},
                     {"num_sinks", anchor.numSinks}};
      object["group_windows"] =
          anchor.groupWindows.empty() ? json(nullptr) : json(anchor.groupWindows);
      root["anchor"] = object;
    }
    if (embryo.moe) {
      const MoeConfig &moe = *embryo.moe;
      root["moe"] = {{"layers", moe.layers},
                     {"num_experts", moe.numExperts},
                     {"rank", moe.rank},
                     {"growth_shells", moe.growthShells}};
    } else {
      root["moe"] = nullptr;
    }
  } else {
    const DoryConfig &dory = config.dory;
    root["num_layers"] = dory.numLayers;
    root["num_q_heads"] = dory.numQHeads;
    root["num_kv_heads"] = dory.numKvHeads;
    root["head_dim"] = dory.headDim;
    root["rope_theta"] = dory.ropeTheta;
    root["window"] = dory.window;
    if (dory.numSinks > 0)
      root["num_sinks"] = dory.numSinks;
    root["attn_scale"] = dory.attnScale;
    json loop = {{"passes", dory.loop.passes}};
    loop["exit_threshold"] = dory.loop.exitThreshold
                                 ? json(*dory.loop.exitThreshold)
                                 : json(nullptr);
    root["loop"] = loop;
    if (dory.farField)
      root["far_field"] = {{"landmarks", dory.farField->landmarks},
                           {"rectify", dory.farField->rectify}};
    else
      root["far_field"] = nullptr;
  }
  return root.dump(indent) + "\n";
}

} // namespace kiln::io
