//===- DoryModel.cpp - Dory's weights in f32 ------------------------------===//

#include "kiln/Reference/DoryModel.h"

#include "kiln/IO/WeightSpec.h"
#include "kiln/Reference/WeightReader.h"

#include "ExpectedRead.h"

#include <string>

namespace kiln::ref {

using io::Error;
using io::Expected;

static Expected<DoryLayerWeights> readLayer(const WeightReader &reader,
                                            const io::ModelConfig &config,
                                            int64_t layer) {
  const io::DoryConfig &d = config.dory;
  const int64_t h = config.hiddenSize, inter = config.intermediateSize;
  const std::string p = "layers." + std::to_string(layer) + ".";
  DoryLayerWeights w;
  KILN_REF_READ(w.q, reader.matrix(p + "attn.q", d.queryDim(), h));
  KILN_REF_READ(w.gate, reader.matrix(p + "attn.gate", d.queryDim(), h));
  KILN_REF_READ(w.k, reader.matrix(p + "attn.k", d.kvDim(), h));
  KILN_REF_READ(w.v, reader.matrix(p + "attn.v", d.kvDim(), h));
  KILN_REF_READ(w.o, reader.matrix(p + "attn.o", h, d.queryDim()));
  KILN_REF_READ(w.scaleQk,
                reader.vector(p + "attn.s_qk", {d.numQHeads, d.headDim}));
  KILN_REF_READ(w.scaleGate, reader.vector(p + "attn.s_g", {d.queryDim()}));
  if (d.numSinks > 0) {
    KILN_REF_READ(w.sinkK, reader.vector(p + "attn.sink_k",
                                         {d.numKvHeads, d.numSinks, d.headDim}));
    KILN_REF_READ(w.sinkV, reader.vector(p + "attn.sink_v",
                                         {d.numKvHeads, d.numSinks, d.headDim}));
  }
  KILN_REF_READ(w.mlp.gate, reader.matrix(p + "mlp.gate", inter, h));
  KILN_REF_READ(w.mlp.up, reader.matrix(p + "mlp.up", inter, h));
  KILN_REF_READ(w.mlp.down, reader.matrix(p + "mlp.down", h, inter));
  KILN_REF_READ(w.mlp.scaleGate, reader.vector(p + "mlp.s_u", {inter}));
  KILN_REF_READ(w.mlp.scaleUp, reader.vector(p + "mlp.s_v", {inter}));
  KILN_REF_READ(w.alphaAttn, reader.vector(p + "alpha_attn", {h}));
  KILN_REF_READ(w.alphaMlp, reader.vector(p + "alpha_mlp", {h}));
  return w;
}

Expected<DoryModel> loadDoryModel(const io::ModelConfig &config,
                                  const io::SafetensorsFile &file) {
  auto opened = WeightReader::forModel(config, file, io::ModelFamily::Dory);
  if (!opened)
    return opened.error();
  const WeightReader &reader = *opened;
  const int64_t h = config.hiddenSize, v = config.vocabSize;
  DoryModel model;
  model.config = config;
  KILN_REF_READ(model.embed, reader.halfVector("embed", {v, h}));
  KILN_REF_READ(model.head, reader.matrix("head", v, h));
  KILN_REF_READ(model.headScale, reader.vector("head_scale", {v}));
  for (int64_t layer = 0; layer < config.dory.numLayers; ++layer) {
    DoryLayerWeights w;
    KILN_REF_READ(w, readLayer(reader, config, layer));
    model.layers.push_back(std::move(w));
  }
  return model;
}

} // namespace kiln::ref
