//===- SampleExecutionTest.cpp - stage.sample's draws vs the top-p law ----===//
//
// stage.sample at a temperature above 0 draws from the top-p set on the
// device. These tests run its kernel thousands of times with fresh random
// words and compare the drawn tokens with the distribution computed on the
// CPU in double: no token outside the top-p set, and a chi-square test over
// bins of equal expected mass (at significance 1e-6; the random words are
// seeded, so a run is deterministic). The greedy cases check the ties and
// NaN rules stay those of the greedy pick.
//
//===----------------------------------------------------------------------===//
#include "HarnessSuite.h"

#include "kiln/Conversion/StageToGPU/StageToGPU.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"
#include "kiln/Target/SPIRV/SPIRVEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace mlir;

namespace {

using Buffers = kiln::test::VulkanHarness::Buffers;

uint64_t splitMix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint32_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

/// The top-p law of `values` at `temperature` in double: weights
/// exp((v − max)/T) kept where the weight strictly above is below p · Σ w.
std::vector<double> topPLaw(const std::vector<float> &values, double temperature, double topP) {
  double maximum = -INFINITY;
  for (float v : values)
    maximum = std::max(maximum, double(v));
  std::vector<double> w(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    w[i] = std::isinf(values[i]) ? 0.0 : std::exp((double(values[i]) - maximum) / temperature);
  double total = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return w[a] > w[b]; });
  std::vector<double> law(values.size(), 0.0);
  double above = 0, kept = 0;
  for (size_t k = 0; k < order.size();) {
    size_t end = k; // ties: the same mass above
    while (end < order.size() && w[order[end]] == w[order[k]])
      ++end;
    if (w[order[k]] == 0 || (topP < 1 && above >= topP * total))
      break;
    for (size_t j = k; j < end; ++j) {
      law[order[j]] = w[order[j]];
      kept += w[order[j]];
      above += w[order[j]];
    }
    k = end;
  }
  for (double &p : law)
    p /= kept;
  return law;
}

/// Chi-square critical value at significance 1e-6 (Wilson-Hilferty).
double chiSquareCritical(double df) {
  const double z = 4.753;
  double a = 2.0 / (9.0 * df);
  return df * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

class SampleExecution : public kiln::test::HarnessSuite<SampleExecution> {
protected:
  void SetUp() override {
    HarnessSuite::SetUp();
    if (IsSkipped())
      return;
    registry.insert<kiln::stage::StageDialect, func::FuncDialect, spirv::SPIRVDialect>();
  }

  /// (token, log-probability) of `draws` runs of stage.sample over `values`,
  /// run r with random word splitMix64(seed)'s r-th value.
  std::vector<std::pair<int32_t, float>> draw(const std::vector<float> &values, bool logits,
                                              float temperature, float topP, uint32_t draws,
                                              uint64_t seed = 1) {
    std::vector<std::pair<int32_t, float>> picks;
    const std::string V = std::to_string(values.size());
    std::string source = "func.func @f(%v: memref<" + V +
                         "xf32>, %p: memref<8xi32>, %o: memref<2xi32>) {\n"
                         "  stage.dispatch \"sample\" {\n"
                         "    stage.sample values(%v : memref<" + V +
                         "xf32>) params(%p : memref<8xi32>) out(%o : memref<2xi32>)" +
                         (logits ? " {logits}" : "") + "\n  }\n  return\n}";
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
    if (!module) {
      ADD_FAILURE() << "module does not parse";
      return picks;
    }
    kiln::StageToGPUOptions options;
    if (failed(kiln::convertStagesToGPU(*module, options))) {
      ADD_FAILURE() << "convert-stage-to-gpu failed";
      return picks;
    }
    auto binaries = kiln::emitSPIRV(*module, {});
    if (failed(binaries) || binaries->size() != 1) {
      ADD_FAILURE() << "no single SPIR-V kernel";
      return picks;
    }
    Buffers buffers(3);
    buffers[0].resize(4 * values.size());
    std::memcpy(buffers[0].data(), values.data(), buffers[0].size());
    std::vector<uint32_t> params = {0, 0, 0, bitsOf(temperature), bitsOf(topP), 0, 0, 0};
    buffers[1].resize(32);
    buffers[2].assign(8, 0xff);
    uint64_t state = seed;
    std::string error = harness->runMany(
        binaries->front().words, binaries->front().name, buffers, 1, draws,
        [&](uint32_t, Buffers &data) {
          params[5] = static_cast<uint32_t>(splitMix64(state) >> 32);
          std::memcpy(data[1].data(), params.data(), 32);
        },
        [&](uint32_t, const Buffers &data) {
          int32_t token;
          float logprob;
          std::memcpy(&token, data[2].data(), 4);
          std::memcpy(&logprob, data[2].data() + 4, 4);
          picks.emplace_back(token, logprob);
        });
    EXPECT_EQ(error, "");
    return picks;
  }

  /// Every pick lies in the law's support, carries its log-probability, and
  /// the counts pass a chi-square test over `bins` bins of equal mass.
  void expectLaw(const std::vector<float> &values, bool logits,
                 const std::vector<std::pair<int32_t, float>> &picks,
                 const std::vector<double> &law, int bins) {
    ASSERT_FALSE(picks.empty());
    double lse = -INFINITY;
    if (logits) {
      double maximum = *std::max_element(values.begin(), values.end()), sum = 0;
      for (float v : values)
        sum += std::isinf(v) ? 0.0 : std::exp(double(v) - maximum);
      lse = maximum + std::log(sum);
    }
    std::vector<double> counts(values.size(), 0.0);
    for (auto [token, logprob] : picks) {
      ASSERT_GE(token, 0);
      ASSERT_LT(size_t(token), values.size());
      ASSERT_GT(law[token], 0.0) << "token " << token << " lies outside the top-p set";
      double expected = logits ? double(values[token]) - lse : double(values[token]);
      EXPECT_NEAR(logprob, expected, 1e-5) << "token " << token;
      counts[token] += 1;
    }
    // Bins of about equal expected mass, tokens in decreasing probability.
    std::vector<size_t> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return law[a] > law[b]; });
    std::vector<double> expected, observed;
    double mass = 0, seen = 0;
    const double n = double(picks.size());
    for (size_t i : order) {
      if (law[i] == 0)
        break;
      if (expected.empty() || mass >= 1.0 / bins) {
        expected.push_back(0);
        observed.push_back(0);
        mass = 0;
      }
      expected.back() += law[i] * n;
      observed.back() += counts[i];
      mass += law[i];
      seen += counts[i];
    }
    EXPECT_EQ(seen, n);
    double chi = 0;
    for (size_t b = 0; b < expected.size(); ++b)
      chi += (observed[b] - expected[b]) * (observed[b] - expected[b]) / expected[b];
    const double df = double(expected.size()) - 1;
    std::printf("[ measure  ] %zu draws, %zu bins: chi-square %.1f (critical %.1f)\n",
                picks.size(), expected.size(), chi, df > 0 ? chiSquareCritical(df) : 0.0);
    if (df > 0)
      EXPECT_LT(chi, chiSquareCritical(df));
  }

  DialectRegistry registry;
};

std::vector<float> spread(size_t count, uint64_t seed, float low, float high) {
  std::vector<float> values(count);
  for (float &v : values)
    v = low + (high - low) * float(splitMix64(seed) >> 40) * 0x1p-24f;
  return values;
}

// 300 logits (a partial last stride of the 256-wide workgroup), some −∞:
// temperature 0.8, top-p 0.6 leaves most tokens out of the set.
TEST_F(SampleExecution, LogitsDrawFromTheTopPSet) {
  std::vector<float> values = spread(300, 7, -3.0f, 3.0f);
  for (size_t i = 0; i < values.size(); i += 11)
    values[i] = -INFINITY;
  auto picks = draw(values, /*logits=*/true, 0.8f, 0.6f, 3000);
  expectLaw(values, true, picks, topPLaw(values, 0.8, 0.6), 20);
}

// 9,000 log-probabilities, top-p 1 (every token), temperature 1.5: long
// walks for the drawing thread.
TEST_F(SampleExecution, LogProbsWithoutACut) {
  std::vector<float> values = spread(9000, 11, -12.0f, -6.0f);
  auto picks = draw(values, /*logits=*/false, 1.5f, 1.0f, 2000);
  expectLaw(values, false, picks, topPLaw(values, 1.5, 1.0), 20);
}

// A peaked law: one token holds most of the mass, so top-p 0.5 keeps it
// alone and top-p 0.95 a few; the draws must never leave the set.
TEST_F(SampleExecution, PeakedLawKeepsTheHead) {
  std::vector<float> values = spread(500, 3, -8.0f, -2.0f);
  values[123] = 4.0f;
  values[321] = 2.5f;
  auto alone = draw(values, true, 1.0f, 0.5f, 200);
  for (auto [token, logprob] : alone)
    EXPECT_EQ(token, 123);
  auto few = draw(values, true, 1.0f, 0.95f, 2000, /*seed=*/5);
  expectLaw(values, true, few, topPLaw(values, 1.0, 0.95), 10);
}

// Temperature 0 is the greedy pick (lowest id among ties); a temperature so
// small that 1/T is infinite still picks the maximum; the same random word
// gives the same token.
TEST_F(SampleExecution, GreedyAndDeterministic) {
  std::vector<float> values = spread(777, 13, -5.0f, 5.0f);
  values[40] = 9.0f;
  values[700] = 9.0f;
  for (auto [token, logprob] : draw(values, true, 0.0f, 0.9f, 3))
    EXPECT_EQ(token, 40);
  for (auto [token, logprob] : draw(values, true, 1e-39f, 0.9f, 3))
    EXPECT_TRUE(token == 40 || token == 700) << token;
  auto first = draw(values, true, 1.0f, 0.9f, 50, /*seed=*/99);
  auto again = draw(values, true, 1.0f, 0.9f, 50, /*seed=*/99);
  EXPECT_EQ(first, again);
  std::vector<float> nan = values;
  nan[5] = NAN;
  for (auto [token, logprob] : draw(nan, true, 1.0f, 0.9f, 2))
    EXPECT_EQ(token, 777) << "a NaN read-out gives the vocabulary size";
}

} // namespace
