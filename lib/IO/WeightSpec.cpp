//===- WeightSpec.cpp - The tensor list of docs/weights.md ----------------===//
#include "kiln/IO/WeightSpec.h"

#include <set>

namespace kiln::io {

const char *weightFormatName(WeightFormat format) {
  return format == WeightFormat::F16 ? "f16" : "q8_2f";
}

Expected<WeightFormat> parseWeightFormat(const std::string &text) {
  if (text == "f16")
    return WeightFormat::F16;
  if (text == "q8_2f")
    return WeightFormat::Q8_2F;
  return Error("unknown weight format \"" + text +
               "\" (expected \"f16\" or \"q8_2f\")");
}

namespace {

class WeightListBuilder {
public:
  void matrix(std::string name, int64_t rows, int64_t cols) {
    add(std::move(name), WeightKind::Matrix, {rows, cols});
  }
  void vector(std::string name, std::vector<int64_t> shape) {
    add(std::move(name), WeightKind::Vector, std::move(shape));
  }
  void embedding(std::string name, int64_t rows, int64_t cols) {
    add(std::move(name), WeightKind::Embedding, {rows, cols});
  }
  std::vector<LogicalWeight> take() { return std::move(weights_); }

private:
  void add(std::string name, WeightKind kind, std::vector<int64_t> shape) {
    weights_.push_back(LogicalWeight{std::move(name), kind, std::move(shape)});
  }
  std::vector<LogicalWeight> weights_;
};

void addEmbryoWeights(const ModelConfig &config, WeightListBuilder &out) {
  const EmbryoConfig &embryo = config.embryo;
  const int64_t H = config.hiddenSize, I = config.intermediateSize;
  out.embedding("embed", config.vocabSize, H);
  for (int64_t layer = 0; layer < embryo.numLayers(); ++layer) {
    const std::string p = "layers." + std::to_string(layer) + ".";
    out.vector(p + "in_norm", {H});
    if (embryo.isGdnLayer(layer)) {
      const GdnConfig &gdn = *embryo.gdn;
      out.matrix(p + "gdn.qkv", gdn.convDim(), H);
      out.matrix(p + "gdn.z", gdn.valueDim(), H);
      out.matrix(p + "gdn.a", gdn.numVHeads, H);
      out.matrix(p + "gdn.b", gdn.numVHeads, H);
      out.vector(p + "gdn.conv", {gdn.convDim(), gdn.convKernel});
      out.vector(p + "gdn.A_log", {gdn.numVHeads});
      out.vector(p + "gdn.dt_bias", {gdn.numVHeads});
      out.vector(p + "gdn.norm", {gdn.headVDim});
      out.matrix(p + "gdn.out", H, gdn.valueDim());
    } else {
      const AnchorConfig &anchor = *embryo.anchor;
      out.matrix(p + "attn.q", anchor.queryDim(), H);
      out.matrix(p + "attn.k", anchor.kvDim(), H);
      out.matrix(p + "attn.v", anchor.kvDim(), H);
      out.matrix(p + "attn.o", H, anchor.queryDim());
      if (anchor.numSinks > 0) {
        out.vector(p + "attn.sink_k",
                   {anchor.numKvHeads, anchor.numSinks, anchor.headDim});
        out.vector(p + "attn.sink_v",
                   {anchor.numKvHeads, anchor.numSinks, anchor.headDim});
      }
    }
    out.vector(p + "post_norm", {H});
    out.matrix(p + "ffn.gate", I, H);
    out.matrix(p + "ffn.up", I, H);
    out.matrix(p + "ffn.down", H, I);
    if (embryo.isMoeLayer(layer)) {
      const MoeConfig &moe = *embryo.moe;
      out.vector(p + "moe.centres", {moe.numExperts, H});
      if (moe.rank > 0)
        out.vector(p + "moe.basis", {moe.numExperts, moe.rank, H});
      out.vector(p + "moe.bias", {moe.numExperts});
      if (moe.growthShells)
        out.vector(p + "moe.shells", {moe.numExperts});
      for (int64_t expert = 0; expert < moe.numExperts; ++expert) {
        const std::string e = p + "moe.experts." + std::to_string(expert) + ".";
        out.matrix(e + "gate", I, H);
        out.matrix(e + "up", I, H);
        out.matrix(e + "down", H, I);
      }
    }
  }
  out.vector("final_norm", {H});
  out.vector("head.clusters", {embryo.numClusters, H});
  out.matrix("head.rows", config.vocabSize, H);
}

void addDoryWeights(const ModelConfig &config, WeightListBuilder &out) {
  const DoryConfig &dory = config.dory;
  const int64_t H = config.hiddenSize, I = config.intermediateSize;
  out.embedding("embed", config.vocabSize, H);
  for (int64_t layer = 0; layer < dory.numLayers; ++layer) {
    const std::string p = "layers." + std::to_string(layer) + ".";
    out.matrix(p + "attn.q", dory.queryDim(), H);
    out.matrix(p + "attn.gate", dory.queryDim(), H);
    out.matrix(p + "attn.k", dory.kvDim(), H);
    out.matrix(p + "attn.v", dory.kvDim(), H);
    out.matrix(p + "attn.o", H, dory.queryDim());
    out.vector(p + "attn.s_qk", {dory.numQHeads, dory.headDim});
    out.vector(p + "attn.s_g", {dory.queryDim()});
    if (dory.numSinks > 0) {
      out.vector(p + "attn.sink_k",
                 {dory.numKvHeads, dory.numSinks, dory.headDim});
      out.vector(p + "attn.sink_v",
                 {dory.numKvHeads, dory.numSinks, dory.headDim});
    }
    out.matrix(p + "mlp.gate", I, H);
    out.matrix(p + "mlp.up", I, H);
    out.matrix(p + "mlp.down", H, I);
    out.vector(p + "mlp.s_u", {I});
    out.vector(p + "mlp.s_v", {I});
    out.vector(p + "alpha_attn", {H});
    out.vector(p + "alpha_mlp", {H});
  }
  out.matrix("head", config.vocabSize, H);
  out.vector("head_scale", {config.vocabSize});
}

} // namespace

std::vector<LogicalWeight> logicalWeights(const ModelConfig &config) {
  WeightListBuilder builder;
  if (config.isEmbryo())
    addEmbryoWeights(config, builder);
  else
    addDoryWeights(config, builder);
  return builder.take();
}

std::vector<TensorSpec> expectedTensors(const ModelConfig &config,
                                        WeightFormat format) {
  std::vector<TensorSpec> tensors;
  for (const LogicalWeight &weight : logicalWeights(config)) {
    switch (weight.kind) {
    case WeightKind::Vector:
      tensors.push_back({weight.name, DType::F32, weight.shape, weight.name,
                         TensorPart::Whole});
      break;
    case WeightKind::Embedding:
      tensors.push_back({weight.name, DType::F16, weight.shape, weight.name,
                         TensorPart::Whole});
      break;
    case WeightKind::Matrix:
      if (format == WeightFormat::F16) {
        tensors.push_back({weight.name, DType::F16, weight.shape, weight.name,
                           TensorPart::Whole});
      } else {
        tensors.push_back({weight.name + ".q", DType::I8, weight.shape,
                           weight.name, TensorPart::Codes});
        tensors.push_back({weight.name + ".row_scale", DType::F32,
                           {weight.shape[0]}, weight.name,
                           TensorPart::RowScale});
        tensors.push_back({weight.name + ".col_scale", DType::F32,
                           {weight.shape[1]}, weight.name,
                           TensorPart::ColScale});
      }
      break;
    }
  }
  return tensors;
}

int64_t parameterCount(const ModelConfig &config) {
  int64_t count = 0;
  for (const LogicalWeight &weight : logicalWeights(config))
    count += weight.elementCount();
  return count;
}

uint64_t weightBytes(const ModelConfig &config, WeightFormat format) {
  uint64_t bytes = 0;
  for (const TensorSpec &tensor : expectedTensors(config, format))
    bytes += tensor.byteSize();
  return bytes;
}

Expected<WeightFormat> detectWeightFormat(const SafetensorsFile &file) {
  auto it = file.metadata().find(kMetadataFormatKey);
  if (it == file.metadata().end())
    return Error(file.path() + ": no \"" + std::string(kMetadataFormatKey) +
                 "\" in __metadata__ (not written by Kiln?)");
  Expected<WeightFormat> format = parseWeightFormat(it->second);
  if (!format)
    return format.error().withPrefix(file.path() + ": " + kMetadataFormatKey +
                                     ": ");
  return format;
}

Status checkWeights(const SafetensorsFile &file, const ModelConfig &config,
                    WeightFormat format) {
  const std::string where = file.path() + ": ";
  Expected<WeightFormat> stored = detectWeightFormat(file);
  if (!stored)
    return stored.error();
  if (*stored != format)
    return Error(where + "weights are " + weightFormatName(*stored) + " but " +
                 weightFormatName(format) + " was expected");
  std::string family = file.metadataValue(kMetadataFamilyKey);
  if (family != modelFamilyName(config.family))
    return Error(where + "weights are for family \"" + family +
                 "\" but the config is \"" + modelFamilyName(config.family) +
                 "\"");

  std::set<std::string> expectedNames;
  for (const TensorSpec &spec : expectedTensors(config, format)) {
    expectedNames.insert(spec.name);
    const TensorView *tensor = file.find(spec.name);
    if (!tensor)
      return Error(where + "missing tensor '" + spec.name + "' (" +
                   dtypeName(spec.dtype) + " " + shapeToString(spec.shape) +
                   ")");
    if (tensor->dtype != spec.dtype)
      return Error(where + "tensor '" + spec.name + "' has dtype " +
                   dtypeName(tensor->dtype) + ", expected " +
                   dtypeName(spec.dtype));
    if (tensor->shape != spec.shape)
      return Error(where + "tensor '" + spec.name + "' has shape " +
                   shapeToString(tensor->shape) + ", expected " +
                   shapeToString(spec.shape));
  }
  for (const TensorView &tensor : file.tensors())
    if (!expectedNames.count(tensor.name))
      return Error(where + "unexpected tensor '" + tensor.name +
                   "' (not in the config's weight list)");
  return Status::success();
}

Status checkWeights(const SafetensorsFile &file, const ModelConfig &config) {
  Expected<WeightFormat> format = detectWeightFormat(file);
  if (!format)
    return format.error();
  return checkWeights(file, config, *format);
}

} // namespace kiln::io
