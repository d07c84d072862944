// Host sampling through the API: a plan whose kernel copies a weight vector into the
// readback, so the test sets the log-probabilities (or logits) exactly.
#include "TestPlan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace kiln::test {
namespace {

PlanSpec copyPlan(kp::ReadbackValues values) {
  using A = kp::Access;
  PlanSpec spec;
  spec.buffers = {{kp::BufferKind::Weight, 32, "weights"}, {kp::BufferKind::Scratch, 32, "y"},
                  {kp::BufferKind::Params, 16, "params"}, {kp::BufferKind::Readback, 32, "readback"}};
  spec.weights = {{"w", kp::DType::F32, {8}, 0, 0, kp::WeightLayout::F32}};
  spec.kernels = {{"copy", loadKernel("copy"), {4, 1, 1}, {{0, 0, A::Read}, {1, 1, A::Write}}}};
  spec.paramsBuffer = 2;
  spec.maxPosition = 1000;
  spec.fields = standardFields();
  ProgramSpec decode{"decode", 1, {{0, {2, 1, 1}, true, "copy"}}, ReadbackSpec{1, 0, 3, 0, 8, values}};
  spec.programs = {decode};
  return spec;
}

class SamplingTest : public ::testing::Test {
protected:
  void SetUp() override {
    kiln_instance_options_t options;
    kiln_instance_options_init(&options);
    ASSERT_EQ(describe(kiln_instance_create(&options, &instance_)), "");
    dir_ = tempDir();
  }
  void TearDown() override {
    for (kiln_session_t *session : sessions_)
      kiln_session_release(session);
    kiln_plan_release(plan_);
    kiln_instance_release(instance_);
  }

  kiln_session_t *open(kp::ReadbackValues kind, const std::vector<float> &values, float temperature,
                       float topP, uint64_t seed) {
    if (!plan_) {
      auto bytes = buildPlan(copyPlan(kind));
      EXPECT_EQ(describe(kiln_plan_load_memory(instance_, bytes.data(), bytes.size(), &plan_)), "");
    }
    std::string weights = writeVectorWeights(dir_, values);
    kiln_session_options_t options;
    kiln_session_options_init(&options);
    options.weights_path = weights.c_str();
    options.temperature = temperature;
    options.top_p = topP;
    options.seed = seed;
    // The weights are the log-probs the copy plan reads back, -inf included.
    options.skip_weight_check = 1;
    kiln_session_t *session = nullptr;
    EXPECT_EQ(describe(kiln_session_create(plan_, &options, &session)), "");
    sessions_.push_back(session);
    return session;
  }

  std::vector<int32_t> generate(kiln_session_t *session, int count) {
    std::vector<int32_t> tokens;
    kiln_step_result_t result{};
    for (int i = 0; i < count; ++i) {
      EXPECT_EQ(describe(kiln_session_step(session, 0, &result)), "");
      tokens.push_back(result.token);
    }
    return tokens;
  }

  kiln_instance_t *instance_ = nullptr;
  kiln_plan_t *plan_ = nullptr;
  std::vector<kiln_session_t *> sessions_;
  std::string dir_;
};

TEST_F(SamplingTest, GreedyTieGoesToLowerId) {
  kiln_session_t *session =
      open(kp::ReadbackValues::LogProbs, {-3, -0.5f, -2, -0.5f, -INFINITY, -9, -0.5f, -1}, 0, 1, 0);
  kiln_step_result_t result{};
  ASSERT_EQ(describe(kiln_session_step(session, 0, &result)), "");
  EXPECT_EQ(result.token, 1);
  EXPECT_EQ(result.logprob, -0.5f);
}

TEST_F(SamplingTest, LogitsAreNormalisedOnTheHost) {
  const std::vector<float> logits = {1, 2, 3, 4, 0, -1, 2.5f, 3.5f};
  kiln_session_t *session = open(kp::ReadbackValues::Logits, logits, 0, 1, 0);
  kiln_step_result_t result{};
  ASSERT_EQ(describe(kiln_session_step(session, 0, &result)), "");
  double sum = 0;
  for (float logit : logits)
    sum += std::exp(static_cast<double>(logit) - 4.0);
  const double logZ = 4.0 + std::log(sum);
  EXPECT_EQ(result.token, 3);
  EXPECT_NEAR(result.logprob, 4.0 - logZ, 1e-6);
  std::vector<float> logprobs(8);
  ASSERT_EQ(describe(kiln_session_read_logprobs(session, logprobs.data(), 8)), "");
  for (int i = 0; i < 8; ++i)
    EXPECT_NEAR(logprobs[i], logits[i] - logZ, 1e-6) << "i = " << i;
}

TEST_F(SamplingTest, AllMinusInfinityCannotBeSampled) {
  kiln_session_t *session = open(kp::ReadbackValues::LogProbs, std::vector<float>(8, -INFINITY), 0, 1, 0);
  kiln_step_result_t result{};
  EXPECT_EQ(describe(kiln_session_step(session, 0, &result)),
            "FAILED_PRECONDITION: every readback value is -inf: no token can be sampled");
}

// Probabilities 0.5 (token 2), 0.3 (token 5), 0.2 over the other six: top-p 0.7 keeps
// exactly {2, 5}; both must appear and nothing else may.
TEST_F(SamplingTest, TopPKeepsTheNucleus) {
  std::vector<float> logprobs(8, std::log(0.2f / 6));
  logprobs[2] = std::log(0.5f);
  logprobs[5] = std::log(0.3f);
  kiln_session_t *session = open(kp::ReadbackValues::LogProbs, logprobs, 1.0f, 0.7f, 42);
  std::vector<int32_t> tokens = generate(session, 200);
  std::set<int32_t> seen(tokens.begin(), tokens.end());
  EXPECT_EQ(seen, (std::set<int32_t>{2, 5}));
}

TEST_F(SamplingTest, FullNucleusReachesEveryToken) {
  std::vector<float> logprobs(8, std::log(1.0f / 8));
  kiln_session_t *session = open(kp::ReadbackValues::LogProbs, logprobs, 1.0f, 1.0f, 3);
  std::vector<int32_t> tokens = generate(session, 400);
  std::set<int32_t> seen(tokens.begin(), tokens.end());
  EXPECT_EQ(seen.size(), 8u);
}

TEST_F(SamplingTest, SameSeedSameTokensOtherSeedOthers) {
  std::vector<float> logprobs(8, std::log(1.0f / 8));
  std::vector<int32_t> first = generate(open(kp::ReadbackValues::LogProbs, logprobs, 1.0f, 1.0f, 7), 50);
  std::vector<int32_t> second = generate(open(kp::ReadbackValues::LogProbs, logprobs, 1.0f, 1.0f, 7), 50);
  std::vector<int32_t> other = generate(open(kp::ReadbackValues::LogProbs, logprobs, 1.0f, 1.0f, 8), 50);
  EXPECT_EQ(first, second);
  EXPECT_NE(first, other);
}

TEST_F(SamplingTest, ResetReseedsTheGenerator) {
  std::vector<float> logprobs(8, std::log(1.0f / 8));
  kiln_session_t *session = open(kp::ReadbackValues::LogProbs, logprobs, 1.0f, 1.0f, 11);
  std::vector<int32_t> first = generate(session, 30);
  ASSERT_EQ(describe(kiln_session_reset(session)), "");
  EXPECT_EQ(generate(session, 30), first);
}

TEST_F(SamplingTest, BadTopPIsRefused) {
  auto bytes = buildPlan(copyPlan(kp::ReadbackValues::LogProbs));
  ASSERT_EQ(describe(kiln_plan_load_memory(instance_, bytes.data(), bytes.size(), &plan_)), "");
  std::string weights = writeVectorWeights(dir_, std::vector<float>(8, 0));
  kiln_session_options_t options;
  kiln_session_options_init(&options);
  options.weights_path = weights.c_str();
  options.top_p = 1.5f;
  kiln_session_t *session = nullptr;
  EXPECT_EQ(describe(kiln_session_create(plan_, &options, &session)),
            "INVALID_ARGUMENT: session: top_p 1.500000 must be in (0, 1]");
  EXPECT_EQ(session, nullptr);
}

// kiln_session_set_sampling: greedy -> top-p 0.7 keeps the nucleus {2, 5}; a bad value
// is refused and leaves the sampler as it was.
TEST_F(SamplingTest, SetSamplingChangesLaterCalls) {
  std::vector<float> logprobs(8, std::log(0.2f / 6));
  logprobs[2] = std::log(0.5f);
  logprobs[5] = std::log(0.3f);
  kiln_session_t *session = open(kp::ReadbackValues::LogProbs, logprobs, 0, 1, 42);
  EXPECT_EQ(generate(session, 20), std::vector<int32_t>(20, 2));
  ASSERT_EQ(describe(kiln_session_set_sampling(session, 1.0f, 0.7f)), "");
  std::vector<int32_t> tokens = generate(session, 200);
  EXPECT_EQ(std::set<int32_t>(tokens.begin(), tokens.end()), (std::set<int32_t>{2, 5}));
  EXPECT_EQ(describe(kiln_session_set_sampling(session, -1.0f, 1.0f)),
            "INVALID_ARGUMENT: session: temperature -1.000000 must be finite and >= 0");
  tokens = generate(session, 200);
  EXPECT_EQ(std::set<int32_t>(tokens.begin(), tokens.end()), (std::set<int32_t>{2, 5}));
  ASSERT_EQ(describe(kiln_session_set_sampling(session, 0.0f, 1.0f)), "");
  EXPECT_EQ(generate(session, 5), std::vector<int32_t>(5, 2));
}

} // namespace
} // namespace kiln::test
