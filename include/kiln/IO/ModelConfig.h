//===- ModelConfig.h - Model configs of both families ----------*- C++ -*-===//
//
// The in-memory form of a Kiln model config (docs/config.md). parseModelConfig
// checks every rule there and names the field and the rule on failure; unknown
// keys are errors. Sizes are int64_t so products (parameter counts, byte
// sizes) never overflow.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IO_MODELCONFIG_H
#define KILN_IO_MODELCONFIG_H

#include "kiln/IO/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::io {

enum class ModelFamily { Embryo, Dory };

const char *modelFamilyName(ModelFamily family); // "embryo" | "dory"
Expected<ModelFamily> parseModelFamily(const std::string &text);

//===----------------------------------------------------------------------===//
// Embryo
//===----------------------------------------------------------------------===//

enum class EmbryoLayerType { Gdn, Anchor };

const char *embryoLayerTypeName(EmbryoLayerType type); // "gdn" | "anchor"

/// Gated delta-rule mixer (`gdn.*`).
struct GdnConfig {
  int64_t numVHeads = 0; // nv
  int64_t numKHeads = 0; // nk
  int64_t headKDim = 0;  // dk
  int64_t headVDim = 0;  // dv
  int64_t convKernel = 0; // kk

  /// Channels of the qkv projection and of the conv: 2·nk·dk + nv·dv.
  int64_t convDim() const { return 2 * numKHeads * headKDim + numVHeads * headVDim; }
  int64_t keyDim() const { return numKHeads * headKDim; }     // nk·dk
  int64_t valueDim() const { return numVHeads * headVDim; }   // nv·dv
  int64_t vHeadsPerKHead() const { return numVHeads / numKHeads; }
  /// Key head read by value head `vHead`.
  int64_t kHeadForVHead(int64_t vHead) const { return vHead / vHeadsPerKHead(); }
};

/// Bounded (ring + sinks) attention mixer (`anchor.*`).
struct AnchorConfig {
  int64_t numQHeads = 0;  // qh
  int64_t numKvHeads = 0; // kvh
  int64_t headDim = 0;    // hd
  int64_t rotaryDim = 0;  // rd
  double ropeTheta = 10000.0;
  int64_t window = 0;     // W, the ring's size
  int64_t numSinks = 0;   // ns
  /// Per-KV-head windows W_kh; empty when the config has none (all use W).
  std::vector<int64_t> groupWindows;

  int64_t qHeadsPerKvHead() const { return numQHeads / numKvHeads; }
  int64_t kvHeadForQHead(int64_t qHead) const { return qHead / qHeadsPerKvHead(); }
  int64_t queryDim() const { return numQHeads * headDim; }  // qh·hd
  int64_t kvDim() const { return numKvHeads * headDim; }    // kvh·hd
  int64_t windowForKvHead(int64_t kvHead) const {
    return groupWindows.empty() ? window : groupWindows[static_cast<size_t>(kvHead)];
  }
};

/// The routed expert (`moe.*`).
struct MoeConfig {
  std::vector<int64_t> layers; // layer indices carrying an MoE, ascending
  int64_t numExperts = 0;      // E
  int64_t rank = 0;            // R
  bool growthShells = false;
};

struct EmbryoConfig {
  int64_t numClusters = 0; // NC
  int64_t clusterSize = 0; // CS
  bool zeroCenteredNorm = true;
  std::vector<EmbryoLayerType> layerTypes;
  /// Present when the config has a `gdn` object (required when any layer is gdn).
  std::optional<GdnConfig> gdn;
  /// Present when the config has an `anchor` object (required when any layer is anchor).
  std::optional<AnchorConfig> anchor;
  std::optional<MoeConfig> moe;

  int64_t numLayers() const { return static_cast<int64_t>(layerTypes.size()); }
  bool isGdnLayer(int64_t layer) const;
  bool isAnchorLayer(int64_t layer) const;
  bool isMoeLayer(int64_t layer) const;
};

//===----------------------------------------------------------------------===//
// Dory
//===----------------------------------------------------------------------===//

struct LoopConfig {
  int64_t passes = 1;
  /// Early exit when the read-out max probability reaches it; none = never.
  std::optional<double> exitThreshold;
};

struct FarFieldConfig {
  int64_t landmarks = 0; // m, per KV head
  bool rectify = false;
};

struct DoryConfig {
  int64_t numLayers = 0;
  int64_t numQHeads = 0;
  int64_t numKvHeads = 0;
  int64_t headDim = 0;
  double ropeTheta = 10000.0;
  int64_t window = 0;
  /// Learned sink keys/values per KV head, first in the near set (0: none).
  int64_t numSinks = 0;
  double attnScale = 0.0; // filled with sqrt(hd) when the key is absent
  LoopConfig loop;
  std::optional<FarFieldConfig> farField;

  int64_t qHeadsPerKvHead() const { return numQHeads / numKvHeads; }
  int64_t kvHeadForQHead(int64_t qHead) const { return qHead / qHeadsPerKvHead(); }
  int64_t queryDim() const { return numQHeads * headDim; }
  int64_t kvDim() const { return numKvHeads * headDim; }
};

//===----------------------------------------------------------------------===//
// The whole config
//===----------------------------------------------------------------------===//

struct ModelConfig {
  ModelFamily family = ModelFamily::Embryo;
  std::string name;
  int64_t hiddenSize = 0;       // H
  int64_t intermediateSize = 0; // I
  int64_t vocabSize = 0;        // V
  double rmsNormEps = 1e-6;
  int64_t maxPosition = 4096;

  EmbryoConfig embryo; // meaningful only when family == Embryo
  DoryConfig dory;     // meaningful only when family == Dory

  bool isEmbryo() const { return family == ModelFamily::Embryo; }
  bool isDory() const { return family == ModelFamily::Dory; }
  int64_t numLayers() const {
    return isEmbryo() ? embryo.numLayers() : dory.numLayers;
  }
};

/// Parses and validates config JSON text. Errors read
/// "config: <field> (<value>) <rule>".
Expected<ModelConfig> parseModelConfig(const std::string &jsonText);

/// Reads `path` and parses it; errors are prefixed with the path.
Expected<ModelConfig> loadModelConfig(const std::string &path);

/// Checks every rule of docs/config.md on an in-memory config (what
/// parseModelConfig runs after reading the fields).
Status validateModelConfig(const ModelConfig &config);

/// Serialises to JSON text that parseModelConfig reads back to an equal config.
/// Every key is written, defaults included, except Dory's `num_sinks` when it
/// is 0: configs without sinks keep the text (and the plans) they had before.
std::string toJson(const ModelConfig &config, int indent = 2);

} // namespace kiln::io

#endif // KILN_IO_MODELCONFIG_H
