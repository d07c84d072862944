//===- TestModels.cpp - Synthetic models for the session tests ------------===//

#include "TestModels.h"

#include "kiln/IO/Safetensors.h"
#include "kiln/IO/SyntheticWeights.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unistd.h>

namespace kiln::ref::test {

io::ModelConfig exampleConfig(const std::string &name) {
  const std::string path =
      std::string(KILN_TEST_SOURCE_DIR) + "/examples/" + name + ".json";
  auto config = io::loadModelConfig(path);
  if (!config) {
    ADD_FAILURE() << config.error().message();
    return io::ModelConfig();
  }
  return *config;
}

std::string writeWeights(const io::ModelConfig &config,
                         io::WeightFormat format, uint64_t seed) {
  char pattern[] = "/tmp/kiln-ref-test-XXXXXX";
  if (!mkdtemp(pattern)) {
    ADD_FAILURE() << "cannot make a temporary folder";
    return "";
  }
  const std::string path = std::string(pattern) + "/weights.safetensors";
  io::Status written = io::writeSyntheticWeights(config, seed, format, path);
  if (!written) {
    ADD_FAILURE() << written.error().message();
    return "";
  }
  return path;
}

template <class Model, class Loader>
static std::shared_ptr<const Model> make(const io::ModelConfig &config,
                                         io::WeightFormat format,
                                         uint64_t seed, Loader load) {
  const std::string path = writeWeights(config, format, seed);
  if (path.empty())
    return nullptr;
  std::shared_ptr<const Model> result;
  {
    auto file = io::SafetensorsFile::open(path);
    if (!file) {
      ADD_FAILURE() << file.error().message();
    } else {
      auto model = load(config, *file);
      if (!model)
        ADD_FAILURE() << model.error().message();
      else
        result = std::make_shared<const Model>(std::move(*model));
    }
  }
  std::remove(path.c_str());
  rmdir(path.substr(0, path.rfind('/')).c_str());
  return result;
}

std::shared_ptr<const EmbryoModel> makeEmbryo(const io::ModelConfig &config,
                                              io::WeightFormat format,
                                              uint64_t seed) {
  return make<EmbryoModel>(config, format, seed, loadEmbryoModel);
}

std::shared_ptr<const DoryModel> makeDory(const io::ModelConfig &config,
                                          io::WeightFormat format,
                                          uint64_t seed) {
  return make<DoryModel>(config, format, seed, loadDoryModel);
}

void expectNoCollapse(const std::vector<int> &tokens) {
  std::map<int, int> counts;
  for (int t : tokens)
    ++counts[t];
  int most = 0;
  for (auto &entry : counts)
    most = std::max(most, entry.second);
  EXPECT_GT(counts.size(), 1u);
  EXPECT_LE(most * 2, static_cast<int>(tokens.size()))
      << "one token fills more than half of " << tokens.size() << " steps";
}

float maxAbsDifference(const std::vector<float> &a,
                       const std::vector<float> &b) {
  float worst = 0.0f;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (std::isfinite(a[i]) && std::isfinite(b[i]))
      worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

} // namespace kiln::ref::test
