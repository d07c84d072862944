//===- EmbryoModel.h - Embryo's weights in f32 -----------------*- C++ -*-===//
//
// Every weight of an Embryo config (docs/weights.md), read from a checked
// safetensors file and expanded to f32. Zero-centred norm weights are stored
// as used (1 + w), so the session never looks at the flag again.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_EMBRYOMODEL_H
#define KILN_REFERENCE_EMBRYOMODEL_H

#include "kiln/IO/Error.h"
#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/Safetensors.h"
#include "kiln/Reference/HierarchicalHead.h"
#include "kiln/Reference/Matrix.h"
#include "kiln/Reference/ResonanceRouter.h"
#include "kiln/Reference/SwiGLU.h"

#include <vector>

namespace kiln::ref {

struct EmbryoGdnWeights {
  Matrix qkv, z, a, b, out;
  std::vector<float> conv;   // [cdim][kk]
  std::vector<float> aLog;   // [nv]
  std::vector<float> dtBias; // [nv]
  std::vector<float> norm;   // [dv], plain
};

struct EmbryoAnchorWeights {
  Matrix q, k, v, o;
  std::vector<float> sinkKeys;   // [kvh][ns][hd], empty when ns = 0
  std::vector<float> sinkValues; // [kvh][ns][hd]
};

struct EmbryoMoeWeights {
  ResonanceRouterWeights router;
  std::vector<SwiGluWeights> experts;
};

struct EmbryoLayerWeights {
  std::vector<float> inNorm;   // as used: 1 + w when zero-centred
  std::vector<float> postNorm; // as used
  bool isGdn = false;
  EmbryoGdnWeights gdn;       // when isGdn
  EmbryoAnchorWeights anchor; // otherwise
  SwiGluWeights ffn;
  bool hasMoe = false;
  EmbryoMoeWeights moe;
};

struct EmbryoModel {
  io::ModelConfig config;
  std::vector<float> embed;     // [V][H]
  std::vector<float> finalNorm; // as used
  HierarchicalHeadWeights head;
  std::vector<EmbryoLayerWeights> layers;
};

/// Checks the file against the config (format from its metadata) and reads
/// every weight. The config must be an Embryo config.
io::Expected<EmbryoModel> loadEmbryoModel(const io::ModelConfig &config,
                                          const io::SafetensorsFile &file);

} // namespace kiln::ref

#endif // KILN_REFERENCE_EMBRYOMODEL_H
