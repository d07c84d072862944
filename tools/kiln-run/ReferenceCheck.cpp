// kiln-run --check-reference: see ReferenceCheck.h.
#include "ReferenceCheck.h"

#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/Safetensors.h"
#include "kiln/Reference/DorySession.h"
#include "kiln/Reference/EmbryoSession.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace kiln::tools {
namespace {

// A dropped token of a gated head is −∞ in the reference and may be −1e30 on the device.
bool dropped(float value) { return !(value > -1e29f); }

class EmbryoRunner : public ReferenceRunner {
public:
  EmbryoRunner(std::shared_ptr<const ref::EmbryoModel> model, float headGate, float headTopP)
      : session_(model) {
    if (headTopP < 1)
      session_.setHeadTopP(headTopP);
    else
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
                                                         float headGate, float headTopP,
                                                         std::string &error) {
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
        std::make_shared<const ref::EmbryoModel>(std::move(*model)), headGate, headTopP);
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

bool DrawCheck::add(int32_t token, const std::vector<float> &reference) {
  ++draws_;
  if (token < 0 || static_cast<size_t>(token) >= reference.size() || dropped(reference[token])) {
    ++outside_;
    return false;
  }
  // Tempered weights, in double, relative to the maximum.
  const double maximum = *std::max_element(reference.begin(), reference.end());
  std::vector<double> weights(reference.size(), 0.0);
  for (size_t i = 0; i < reference.size(); ++i)
    if (!dropped(reference[i]))
      weights[i] = std::exp((static_cast<double>(reference[i]) - maximum) / temperature_);
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  const double own = weights[token];
  double above = 0;
  for (double w : weights)
    if (w > own)
      above += w;
  constexpr double kSlack = 1e-3;
  if (topP_ < 1 && above >= (topP_ + kSlack) * total) {
    ++outside_;
    return false;
  }
  // The set's mass, and the token's interval [above, above + ties) in it; a tie
  // group shares the interval evenly.
  double ties = 0;
  for (double w : weights)
    if (w == own)
      ties += w;
  // The set's mass: whole tie groups, heaviest first, until top_p is reached.
  std::vector<double> sorted;
  for (double w : weights)
    if (w > 0)
      sorted.push_back(w);
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  double mass = 0;
  for (size_t k = 0; k < sorted.size();) {
    size_t end = k;
    while (end < sorted.size() && sorted[end] == sorted[k])
      ++end;
    if (topP_ < 1 && mass >= topP_ * total)
      break;
    for (size_t j = k; j < end; ++j)
      mass += sorted[j];
    k = end;
  }
  const double kept = std::max(mass, above + ties);
  const double low = above / kept, high = std::min(1.0, (above + ties) / kept);
  // Spread the token's interval over the bins it covers, one draw in all.
  const double bins = static_cast<double>(bins_.size());
  for (size_t b = 0; b < bins_.size(); ++b) {
    const double from = std::max(low, b / bins), to = std::min(high, (b + 1) / bins);
    if (to > from)
      bins_[b] += (to - from) / (high - low);
  }
  return true;
}

double DrawCheck::chiSquare() const {
  const double inside = static_cast<double>(draws_ - outside_);
  if (inside == 0)
    return 0;
  const double expected = inside / static_cast<double>(bins_.size());
  double chi = 0;
  for (double observed : bins_)
    chi += (observed - expected) * (observed - expected) / expected;
  return chi;
}

double DrawCheck::critical() const {
  // Wilson-Hilferty at significance 1e-6.
  const double df = static_cast<double>(bins_.size()) - 1, z = 4.753;
  const double a = 2.0 / (9.0 * df);
  return df * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

} // namespace kiln::tools
