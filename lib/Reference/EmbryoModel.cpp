//===- EmbryoModel.cpp - Embryo's weights in f32 --------------------------===//

#include "kiln/Reference/EmbryoModel.h"

#include "kiln/IO/WeightSpec.h"
#include "kiln/Reference/WeightReader.h"

#include "ExpectedRead.h"

#include <string>

namespace kiln::ref {

using io::Error;
using io::Expected;


static std::vector<float> normAsUsed(std::vector<float> w, bool zeroCentred) {
  if (zeroCentred)
    for (float &value : w)
      value += 1.0f;
  return w;
}

static Expected<SwiGluWeights> readSwiGlu(const WeightReader &reader,
                                          const std::string &prefix,
                                          int64_t hidden, int64_t inter) {
  SwiGluWeights w;
  KILN_REF_READ(w.gate, reader.matrix(prefix + ".gate", inter, hidden));
  KILN_REF_READ(w.up, reader.matrix(prefix + ".up", inter, hidden));
  KILN_REF_READ(w.down, reader.matrix(prefix + ".down", hidden, inter));
  return w;
}

static Expected<EmbryoLayerWeights> readLayer(const WeightReader &reader,
                                              const io::ModelConfig &config,
                                              int64_t layer) {
  const io::EmbryoConfig &e = config.embryo;
  const int64_t h = config.hiddenSize;
  const std::string p = "layers." + std::to_string(layer) + ".";
  EmbryoLayerWeights w;
  KILN_REF_READ(w.inNorm, reader.vector(p + "in_norm", {h}));
  KILN_REF_READ(w.postNorm, reader.vector(p + "post_norm", {h}));
  w.inNorm = normAsUsed(std::move(w.inNorm), e.zeroCenteredNorm);
  w.postNorm = normAsUsed(std::move(w.postNorm), e.zeroCenteredNorm);
  w.isGdn = e.isGdnLayer(layer);
  if (w.isGdn) {
    const io::GdnConfig &g = *e.gdn;
    EmbryoGdnWeights &gdn = w.gdn;
    KILN_REF_READ(gdn.qkv, reader.matrix(p + "gdn.qkv", g.convDim(), h));
    KILN_REF_READ(gdn.z, reader.matrix(p + "gdn.z", g.valueDim(), h));
    KILN_REF_READ(gdn.a, reader.matrix(p + "gdn.a", g.numVHeads, h));
    KILN_REF_READ(gdn.b, reader.matrix(p + "gdn.b", g.numVHeads, h));
    KILN_REF_READ(gdn.conv,
                  reader.vector(p + "gdn.conv", {g.convDim(), g.convKernel}));
    KILN_REF_READ(gdn.aLog, reader.vector(p + "gdn.A_log", {g.numVHeads}));
    KILN_REF_READ(gdn.dtBias, reader.vector(p + "gdn.dt_bias", {g.numVHeads}));
    KILN_REF_READ(gdn.norm, reader.vector(p + "gdn.norm", {g.headVDim}));
    KILN_REF_READ(gdn.out, reader.matrix(p + "gdn.out", h, g.valueDim()));
  } else {
    const io::AnchorConfig &a = *e.anchor;
    EmbryoAnchorWeights &att = w.anchor;
    KILN_REF_READ(att.q, reader.matrix(p + "attn.q", a.queryDim(), h));
    KILN_REF_READ(att.k, reader.matrix(p + "attn.k", a.kvDim(), h));
    KILN_REF_READ(att.v, reader.matrix(p + "attn.v", a.kvDim(), h));
    KILN_REF_READ(att.o, reader.matrix(p + "attn.o", h, a.queryDim()));
    if (a.numSinks > 0) {
      KILN_REF_READ(att.sinkKeys,
                    reader.vector(p + "attn.sink_k",
                                  {a.numKvHeads, a.numSinks, a.headDim}));
      KILN_REF_READ(att.sinkValues,
                    reader.vector(p + "attn.sink_v",
                                  {a.numKvHeads, a.numSinks, a.headDim}));
    }
  }
  KILN_REF_READ(w.ffn,
                readSwiGlu(reader, p + "ffn", h, config.intermediateSize));
  w.hasMoe = e.isMoeLayer(layer);
  if (w.hasMoe) {
    const io::MoeConfig &m = *e.moe;
    ResonanceRouterWeights &r = w.moe.router;
    r.experts = static_cast<size_t>(m.numExperts);
    r.rank = static_cast<size_t>(m.rank);
    r.hidden = static_cast<size_t>(h);
    KILN_REF_READ(r.centres,
                  reader.vector(p + "moe.centres", {m.numExperts, h}));
    if (m.rank > 0)
      KILN_REF_READ(r.basis,
                    reader.vector(p + "moe.basis", {m.numExperts, m.rank, h}));
    KILN_REF_READ(r.bias, reader.vector(p + "moe.bias", {m.numExperts}));
    if (m.growthShells)
      KILN_REF_READ(r.shells, reader.vector(p + "moe.shells", {m.numExperts}));
    for (int64_t x = 0; x < m.numExperts; ++x) {
      SwiGluWeights expert;
      KILN_REF_READ(expert,
                    readSwiGlu(reader, p + "moe.experts." + std::to_string(x),
                               h, config.intermediateSize));
      w.moe.experts.push_back(std::move(expert));
    }
  }
  return w;
}

Expected<EmbryoModel> loadEmbryoModel(const io::ModelConfig &config,
                                      const io::SafetensorsFile &file) {
  auto opened = WeightReader::forModel(config, file, io::ModelFamily::Embryo);
  if (!opened)
    return opened.error();
  const WeightReader &reader = *opened;
  const io::EmbryoConfig &e = config.embryo;
  const int64_t h = config.hiddenSize, v = config.vocabSize;
  EmbryoModel model;
  model.config = config;
  KILN_REF_READ(model.embed, reader.halfVector("embed", {v, h}));
  KILN_REF_READ(model.finalNorm, reader.vector("final_norm", {h}));
  model.finalNorm = normAsUsed(std::move(model.finalNorm), e.zeroCenteredNorm);
  model.head.clusterCount = static_cast<size_t>(e.numClusters);
  model.head.clusterSize = static_cast<size_t>(e.clusterSize);
  std::vector<float> clusters;
  KILN_REF_READ(clusters, reader.vector("head.clusters", {e.numClusters, h}));
  model.head.clusters = Matrix{static_cast<size_t>(e.numClusters),
                               static_cast<size_t>(h), std::move(clusters)};
  KILN_REF_READ(model.head.rows, reader.matrix("head.rows", v, h));
  for (int64_t layer = 0; layer < e.numLayers(); ++layer) {
    EmbryoLayerWeights w;
    KILN_REF_READ(w, readLayer(reader, config, layer));
    model.layers.push_back(std::move(w));
  }
  return model;
}

} // namespace kiln::ref
