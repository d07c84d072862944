// kiln-run --check-reference: see ReferenceCheck.h.
#include "ReferenceCheck.h"

#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/Safetensors.h"
#include "kiln/Reference/DorySession.h"
#include "kiln/Reference/EmbryoSession.h"

#include <cmath>
#include <limits>

namespace kiln::tools {
namespace {

// A dropped token of a gated head is −∞ in the reference and may be −1e30 on the device.
bool dropped(float value) { return !(value > -1e29f); }

class EmbryoRunner : public ReferenceRunner {
public:
  EmbryoRunner(std::shared_ptr<const ref::EmbryoModel> model, float headGate)
      : session_(model) {
    session_.setHeadGate(headGate);
  }
  bool call(const std::vector<int32_t> &tokens, std::vector<float> &logprobs,
            std::string &error) override {
    for (int32_t token : tokens) {
      auto step = session_.step(token);
      if (!step) {
        error = step.error().message();
        return false;
      }
      logprobs = std::move(*step);
    }
    ++calls_;
    return true;
  }

private:
  ref::EmbryoSession session_;
};

class DoryRunner : public ReferenceRunner {
public:
  explicit DoryRunner(std::shared_ptr<const ref::DoryModel> model)
      : session_(model), passes_(static_cast<size_t>(model->config.dory.loop.passes)) {}
  bool call(const std::vector<int32_t> &tokens, std::vector<float> &logprobs,
            std::string &error) override {
    auto result = session_.forward(std::vector<int>(tokens.begin(), tokens.end()));
    if (!result) {
      error = result.error().message();
      return false;
    }
    logprobs = std::move(*result);
    ++calls_;
    if (session_.lastPassesUsed() < passes_)
      ++earlyExits_;
    return true;
  }

private:
  ref::DorySession session_;
  size_t passes_;
};

} // namespace

std::unique_ptr<ReferenceRunner> ReferenceRunner::create(const std::string &configPath,
                                                         const std::string &weightsPath,
                                                         float headGate, std::string &error) {
  auto config = io::loadModelConfig(configPath);
  if (!config) {
    error = config.error().message();
    return nullptr;
  }
  auto file = io::SafetensorsFile::open(weightsPath);
  if (!file) {
    error = file.error().message();
    return nullptr;
  }
  if (config->isEmbryo()) {
    auto model = ref::loadEmbryoModel(*config, *file);
    if (!model) {
      error = model.error().message();
      return nullptr;
    }
    return std::make_unique<EmbryoRunner>(
        std::make_shared<const ref::EmbryoModel>(std::move(*model)), headGate);
  }
  auto model = ref::loadDoryModel(*config, *file);
  if (!model) {
    error = model.error().message();
    return nullptr;
  }
  return std::make_unique<DoryRunner>(std::make_shared<const ref::DoryModel>(std::move(*model)));
}

StepComparison compareStep(int32_t planToken, const std::vector<float> &plan,
                           const std::vector<float> &reference) {
  StepComparison result;
  result.planToken = planToken;
  float best = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < reference.size(); ++i)
    if (reference[i] > best) { // strict: the lower id wins a tie
      best = reference[i];
      result.referenceToken = static_cast<int32_t>(i);
    }
  if (plan.size() != reference.size()) {
    result.maxAbsError = std::numeric_limits<double>::infinity();
    return result;
  }
  for (size_t i = 0; i < plan.size(); ++i) {
    if (dropped(plan[i]) || dropped(reference[i])) {
      if (dropped(plan[i]) != dropped(reference[i]))
        result.maxAbsError = std::numeric_limits<double>::infinity();
      continue;
    }
    result.maxAbsError =
        std::max(result.maxAbsError, std::fabs(static_cast<double>(plan[i]) - reference[i]));
  }
  return result;
}

} // namespace kiln::tools
