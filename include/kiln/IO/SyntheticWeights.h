//===- SyntheticWeights.h - Deterministic synthetic weights ----*- C++ -*-===//
//
// Random but well-scaled weights for any config, identical on every platform:
// a fixed generator (splitmix64 seeding xoshiro256**; normals are the sum of
// four uniforms, so matrices use only correctly rounded IEEE operations),
// never std:: distributions, whose output differs by library. Each
// tensor draws from its own stream seeded by (seed, logical name), so the
// values do not depend on the order tensors are made in.
//
// Scales keep activations in range so greedy decoding does not collapse to
// one repeated token; they are gathered in SyntheticScales to be easy to tune.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IO_SYNTHETICWEIGHTS_H
#define KILN_IO_SYNTHETICWEIGHTS_H

#include "kiln/IO/Error.h"
#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/Safetensors.h"
#include "kiln/IO/WeightSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::io {

/// Knobs of the generator. Matrices are ~N(0, gain^2 / cols); "N" here is the
/// sum of four uniforms, rescaled to unit variance (bounded by 3.47 sigma).
struct SyntheticScales {
  double matrixGain = 1.0;       // projections in the blocks
  double outputGain = 0.5;       // matrices writing into the residual (o, out, down)
  double headGain = 1.0;         // output head rows / clusters
  double embedStd = 1.0;         // embedding entries
  double normStd = 0.05;         // zero-centred norm weights ~ N(0, normStd^2)
  double sinkStd = 0.1;          // anchor sink keys/values
  double alphaMin = 0.05;        // dory slerp steps, uniform in [alphaMin, alphaMax]
  double alphaMax = 0.3;
  double headScaleFactor = 1.0;  // dory head_scale = factor * sqrt(H)
  double moeCentreStd = 0.5;     // router centres
  double moeBasisStd = 1.0;      // router basis rows ~N(0, std^2 / H)
  /// Fraction of experts (rounded up, at least 1) that are trunk (+inf shell).
  double trunkFraction = 0.5;
};

/// The values of one logical weight (f32, row-major), as the file will hold
/// them before f16 rounding or quantization.
std::vector<float> syntheticWeightValues(const ModelConfig &config,
                                         uint64_t seed,
                                         const LogicalWeight &weight,
                                         const SyntheticScales &scales = {});

/// Writes a complete weight file for `config` to `path` (atomically), one
/// tensor in memory at a time. `progress` is called after every tensor.
Status writeSyntheticWeights(const ModelConfig &config, uint64_t seed,
                             WeightFormat format, const std::string &path,
                             const ProgressFn &progress = {},
                             const SyntheticScales &scales = {});

} // namespace kiln::io

#endif // KILN_IO_SYNTHETICWEIGHTS_H
