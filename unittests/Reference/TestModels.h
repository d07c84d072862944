//===- TestModels.h - Synthetic models for the session tests --*- C++ -*-===//
//
// Loads an example config and builds its model from IO's synthetic weight
// generator (the same as kiln-synth), through a real safetensors file, so the
// whole load path runs in the tests.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_UNITTESTS_REFERENCE_TESTMODELS_H
#define KILN_UNITTESTS_REFERENCE_TESTMODELS_H

#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/WeightSpec.h"
#include "kiln/Reference/DoryModel.h"
#include "kiln/Reference/EmbryoModel.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::ref::test {

/// examples/<name>.json, parsed; fails the calling test when it cannot.
io::ModelConfig exampleConfig(const std::string &name);

/// Writes synthetic weights for `config` to a fresh temporary file and
/// returns its path ("" on failure, with a test failure recorded).
std::string writeWeights(const io::ModelConfig &config,
                         io::WeightFormat format, uint64_t seed = 1);

std::shared_ptr<const EmbryoModel> makeEmbryo(const io::ModelConfig &config,
                                              io::WeightFormat format,
                                              uint64_t seed = 1);
std::shared_ptr<const DoryModel> makeDory(const io::ModelConfig &config,
                                          io::WeightFormat format,
                                          uint64_t seed = 1);

/// Greedy decoding must not collapse: more than one distinct token and no
/// token taking more than half of the steps.
void expectNoCollapse(const std::vector<int> &tokens);

/// Largest |a − b| over entries where both are finite.
float maxAbsDifference(const std::vector<float> &a, const std::vector<float> &b);

} // namespace kiln::ref::test

#endif // KILN_UNITTESTS_REFERENCE_TESTMODELS_H
