//===- DoryModel.h - Dory's weights in f32 ---------------------*- C++ -*-===//
//
// Every weight of a Dory config (docs/weights.md), read from a checked
// safetensors file and expanded to f32.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_DORYMODEL_H
#define KILN_REFERENCE_DORYMODEL_H

#include "kiln/IO/Error.h"
#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/Safetensors.h"
#include "kiln/Reference/Matrix.h"
#include "kiln/Reference/ScaledMlp.h"

#include <vector>

namespace kiln::ref {

struct DoryLayerWeights {
  Matrix q, gate, k, v, o;
  std::vector<float> scaleQk;   // s_qk [qh][hd]
  std::vector<float> scaleGate; // s_g [qh·hd]
  // Sink keys and values [kvh][ns][hd]; empty when the config has none.
  std::vector<float> sinkK, sinkV;
  ScaledMlpWeights mlp;
  std::vector<float> alphaAttn, alphaMlp; // [H]
};

struct DoryModel {
  io::ModelConfig config;
  std::vector<float> embed; // [V][H]
  Matrix head;              // [V, H]
  std::vector<float> headScale; // [V]
  std::vector<DoryLayerWeights> layers;
};

io::Expected<DoryModel> loadDoryModel(const io::ModelConfig &config,
                                      const io::SafetensorsFile &file);

} // namespace kiln::ref

#endif // KILN_REFERENCE_DORYMODEL_H
