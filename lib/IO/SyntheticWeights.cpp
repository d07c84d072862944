//===- SyntheticWeights.cpp - Deterministic, well-scaled weights ----------===//
//
// Each logical weight is drawn by role (read off its name) from its own
// random stream. The roles and their scales:
//   matrices          ~N(0, gain^2/cols): a unit-RMS input gives unit-scale
//                     outputs (outputGain for o/out/down, headGain for heads)
//   norms             zero-centred: ~N(0, normStd^2) (used as 1 + w);
//                     otherwise 1 + N(0, normStd^2)
//   gdn.A_log         log(U[1, 16]) (decay rates as in Mamba-style inits)
//   gdn.dt_bias       softplus^-1(dt), dt log-uniform in [1e-3, 1e-1]
//   gdn.conv          ~N(0, 1/kk)
//   sinks             ~N(0, sinkStd^2)
//   moe.centres/bias  ~N(0, centreStd^2) / ~N(0, (0.5 sqrt(H) centreStd)^2)
//   moe.shells        +inf for the first ceil(E * trunkFraction) experts
//                     (trunk), else about the expected residual |x2 - mu|^2,
//                     so a finite-shell expert is masked about half the time
//   dory s_qk, s_v    1 + N(0, 0.1^2); s_g, s_u: sqrt(H) (1 + N(0, 0.1^2)),
//                     since they scale projections of unit vectors
//   dory alpha        U[alphaMin, alphaMax]; head_scale: factor sqrt(H) U[.9,1.1]
//
//===----------------------------------------------------------------------===//
#include "kiln/IO/SyntheticWeights.h"

#include "kiln/IO/Half.h"
#include "kiln/IO/Quantize.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kiln::io {

namespace {

uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t fnv1a64(const std::string &text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

/// xoshiro256**: small, fast, and the same on every platform.
class Random {
public:
  Random(uint64_t seed, const std::string &stream) {
    uint64_t mix = seed ^ fnv1a64(stream);
    for (uint64_t &word : state_)
      word = splitmix64(mix);
  }

  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) {
    return low + (high - low) * uniform();
  }

  /// Approximately standard normal: Irwin-Hall with 4 terms (variance 1/3),
  /// rescaled. Only +, * and a correctly rounded constant: bit-reproducible.
  double normal() {
    double sum = uniform() + uniform() + uniform() + uniform();
    return (sum - 2.0) * 1.7320508075688772; // sqrt(3)
  }

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4];
};

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isOutputMatrix(const std::string &name) {
  return endsWith(name, "attn.o") || endsWith(name, "gdn.out") ||
         endsWith(name, ".down");
}

void fillNormal(std::vector<float> &values, Random &random, double mean,
                double stddev) {
  for (float &value : values)
    value = static_cast<float>(mean + stddev * random.normal());
}

} // namespace

std::vector<float> syntheticWeightValues(const ModelConfig &config,
                                         uint64_t seed,
                                         const LogicalWeight &weight,
                                         const SyntheticScales &scales) {
  const std::string &name = weight.name;
  std::vector<float> values(static_cast<size_t>(weight.elementCount()));
  Random random(seed, name);
  const double H = static_cast<double>(config.hiddenSize);
  const double cols = static_cast<double>(weight.shape.back());

  if (weight.kind == WeightKind::Matrix) {
    double gain = scales.matrixGain;
    if (name == "head" || name == "head.rows")
      gain = scales.headGain;
    else if (isOutputMatrix(name))
      gain = scales.outputGain;
    fillNormal(values, random, 0.0, gain / std::sqrt(cols));
    return values;
  }
  if (name == "embed") {
    fillNormal(values, random, 0.0, scales.embedStd);
    return values;
  }
  if (endsWith(name, "in_norm") || endsWith(name, "post_norm") ||
      name == "final_norm") {
    double mean = config.embryo.zeroCenteredNorm ? 0.0 : 1.0;
    fillNormal(values, random, mean, scales.normStd);
    return values;
  }
  if (endsWith(name, "gdn.norm")) {
    fillNormal(values, random, 1.0, scales.normStd);
    return values;
  }
  if (endsWith(name, "gdn.conv")) {
    fillNormal(values, random, 0.0, 1.0 / std::sqrt(cols));
    return values;
  }
  if (endsWith(name, "gdn.A_log")) {
    for (float &value : values)
      value = static_cast<float>(std::log(random.uniform(1.0, 16.0)));
    return values;
  }
  if (endsWith(name, "gdn.dt_bias")) {
    for (float &value : values) {
      double dt = std::exp(random.uniform(std::log(1e-3), std::log(1e-1)));
      value = static_cast<float>(dt + std::log(-std::expm1(-dt)));
    }
    return values;
  }
  if (endsWith(name, "attn.sink_k") || endsWith(name, "attn.sink_v")) {
    fillNormal(values, random, 0.0, scales.sinkStd);
    return values;
  }
  if (endsWith(name, "moe.centres")) {
    fillNormal(values, random, 0.0, scales.moeCentreStd);
    return values;
  }
  if (endsWith(name, "moe.basis")) {
    fillNormal(values, random, 0.0, scales.moeBasisStd / std::sqrt(H));
    return values;
  }
  if (endsWith(name, "moe.bias")) {
    fillNormal(values, random, 0.0, 0.5 * std::sqrt(H) * scales.moeCentreStd);
    return values;
  }
  if (endsWith(name, "moe.shells")) {
    const MoeConfig &moe = *config.embryo.moe;
    int64_t trunk = static_cast<int64_t>(
        std::ceil(scales.trunkFraction * static_cast<double>(moe.numExperts)));
    if (trunk < 1)
      trunk = 1;
    // Expected |x2 - mu|^2 off the expert's subspace, for x2 = rms(h) * w.
    double distance = H * (1.0 + scales.normStd * scales.normStd +
                           scales.moeCentreStd * scales.moeCentreStd);
    double kept = 1.0 - static_cast<double>(moe.rank) * scales.moeBasisStd *
                            scales.moeBasisStd / H;
    if (kept < 0.05)
      kept = 0.05;
    for (size_t e = 0; e < values.size(); ++e) {
      double jitter = random.uniform(0.9, 1.1);
      values[e] = static_cast<int64_t>(e) < trunk
                      ? std::numeric_limits<float>::infinity()
                      : static_cast<float>(distance * kept * jitter);
    }
    return values;
  }
  if (name == "head.clusters") {
    fillNormal(values, random, 0.0, scales.headGain / std::sqrt(H));
    return values;
  }
  if (endsWith(name, "attn.s_g") || endsWith(name, "mlp.s_u")) {
    fillNormal(values, random, std::sqrt(H), 0.1 * std::sqrt(H));
    return values;
  }
  if (endsWith(name, "attn.s_qk") || endsWith(name, "mlp.s_v")) {
    fillNormal(values, random, 1.0, 0.1);
    return values;
  }
  if (endsWith(name, "alpha_attn") || endsWith(name, "alpha_mlp")) {
    for (float &value : values)
      value = static_cast<float>(
          random.uniform(scales.alphaMin, scales.alphaMax));
    return values;
  }
  if (name == "head_scale") {
    for (float &value : values)
      value = static_cast<float>(scales.headScaleFactor * std::sqrt(H) *
                                 random.uniform(0.9, 1.1));
    return values;
  }
  // A weight the list grew without a role here: small, centred, finite.
  fillNormal(values, random, 0.0, 0.02);
  return values;
}

namespace {

void storeHalf(const std::vector<float> &values, void *destination) {
  uint16_t *out = static_cast<uint16_t *>(destination);
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = floatToHalfBits(values[i]);
}

/// The scales of the last quantized matrix, so that .row_scale and
/// .col_scale (written right after .q) need not redo the fit.
struct QuantizedScales {
  std::string logicalName;
  std::vector<float> rowScale;
  std::vector<float> colScale;
};

} // namespace

Status writeSyntheticWeights(const ModelConfig &config, uint64_t seed,
                             WeightFormat format, const std::string &path,
                             const ProgressFn &progress,
                             const SyntheticScales &scales) {
  if (Status valid = validateModelConfig(config); !valid)
    return valid.error();

  SafetensorsWriter writer;
  writer.setMetadata(kMetadataFormatKey, weightFormatName(format));
  writer.setMetadata(kMetadataFamilyKey, modelFamilyName(config.family));
  writer.setMetadata("kiln.generator", "kiln-synth");
  writer.setMetadata("kiln.seed", std::to_string(seed));
  if (!config.name.empty())
    writer.setMetadata("kiln.model", config.name);

  std::vector<LogicalWeight> weights = logicalWeights(config);
  std::map<std::string, const LogicalWeight *> byName;
  for (const LogicalWeight &weight : weights)
    byName[weight.name] = &weight;
  auto cache = std::make_shared<QuantizedScales>();

  for (const TensorSpec &spec : expectedTensors(config, format)) {
    const LogicalWeight &weight = *byName.at(spec.logicalName);
    TensorFiller fill;
    switch (spec.part) {
    case TensorPart::Whole:
      fill = [&config, seed, &weight, &scales, dtype = spec.dtype](
                 void *destination, size_t byteSize) -> Status {
        std::vector<float> values =
            syntheticWeightValues(config, seed, weight, scales);
        if (dtype == DType::F16)
          storeHalf(values, destination);
        else
          std::memcpy(destination, values.data(), byteSize);
        return Status::success();
      };
      break;
    case TensorPart::Codes:
      fill = [&config, seed, &weight, &scales, cache](void *destination,
                                                      size_t) -> Status {
        std::vector<float> values =
            syntheticWeightValues(config, seed, weight, scales);
        cache->logicalName = weight.name;
        cache->rowScale.resize(static_cast<size_t>(weight.shape[0]));
        cache->colScale.resize(static_cast<size_t>(weight.shape[1]));
        return quantizeQ8_2FInto(values.data(), weight.shape[0],
                                 weight.shape[1],
                                 static_cast<int8_t *>(destination),
                                 cache->rowScale.data(),
                                 cache->colScale.data());
      };
      break;
    case TensorPart::RowScale:
    case TensorPart::ColScale:
      fill = [&config, seed, &weight, &scales, cache, part = spec.part](
                 void *destination, size_t byteSize) -> Status {
        if (cache->logicalName != weight.name) {
          // Written out of order: redo the fit (deterministic).
          std::vector<float> values =
              syntheticWeightValues(config, seed, weight, scales);
          Expected<QuantizedMatrix> matrix =
              quantizeQ8_2F(values.data(), weight.shape[0], weight.shape[1]);
          if (!matrix)
            return matrix.error();
          cache->logicalName = weight.name;
          cache->rowScale = matrix->rowScale;
          cache->colScale = matrix->colScale;
        }
        const std::vector<float> &source =
            part == TensorPart::RowScale ? cache->rowScale : cache->colScale;
        std::memcpy(destination, source.data(), byteSize);
        return Status::success();
      };
      break;
    }
    if (Status status = writer.addLazyTensor(spec.name, spec.dtype, spec.shape,
                                             std::move(fill));
        !status)
      return status;
  }
  return writer.write(path, progress);
}

} // namespace kiln::io
