// Sessions on the device: exact results of single and chained dispatches, replay over
// tokens with the parameter block changing, state persistence and reset, prefill,
// weight-file mismatches, stats and profiling.
#include "TestPlan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

namespace kiln::test {
namespace {

class SessionTest : public ::testing::Test {
protected:
  void SetUp() override {
    kiln_instance_options_t options;
    kiln_instance_options_init(&options);
    ASSERT_EQ(describe(kiln_instance_create(&options, &instance_)), "");
    dir_ = tempDir();
  }
  void TearDown() override {
    kiln_session_release(session_);
    kiln_plan_release(plan_);
    kiln_instance_release(instance_);
  }

  // Loads `spec` and opens a session on `weights`; returns "" or the error.
  std::string open(const PlanSpec &spec, const std::string &weights, bool profiling = false,
                   kiln_wait_mode_t waitMode = KILN_WAIT_AUTO,
                   kiln_robust_mode_t robust = KILN_ROBUST_AUTO) {
    auto bytes = buildPlan(spec);
    std::string error = describe(kiln_plan_load_memory(instance_, bytes.data(), bytes.size(), &plan_));
    if (!error.empty())
      return error;
    kiln_session_options_t options;
    kiln_session_options_init(&options);
    options.weights_path = weights.c_str();
    options.enable_profiling = profiling ? 1 : 0;
    options.wait_mode = waitMode;
    options.robust_kernels = robust;
    return describe(kiln_session_create(plan_, &options, &session_));
  }

  // The session's profile, every entry.
  std::vector<kiln_dispatch_profile_t> profileEntries() {
    size_t count = 0;
    EXPECT_EQ(describe(kiln_session_profile(session_, nullptr, 0, &count)), "");
    std::vector<kiln_dispatch_profile_t> entries(count);
    EXPECT_EQ(describe(kiln_session_profile(session_, entries.data(), count, &count)), "");
    return entries;
  }

  std::vector<float> readback() {
    std::vector<float> values(8, NAN);
    EXPECT_EQ(describe(kiln_session_read_logprobs(session_, values.data(), values.size())), "");
    return values;
  }

  kiln_instance_t *instance_ = nullptr;
  kiln_plan_t *plan_ = nullptr;
  kiln_session_t *session_ = nullptr;
  std::string dir_;
};

TEST_F(SessionTest, SingleDispatchIsExact) {
  PlanSpec spec = chainPlan();
  spec.programs[0].dispatches.resize(1);
  spec.programs[0].readback = ReadbackSpec{1, 0, 5, 0, 8}; // y
  ASSERT_EQ(open(spec, writeChainWeights(dir_)), "");
  ASSERT_EQ(describe(kiln_session_prefill(session_, std::vector<int32_t>{3, 3, 3}.data(), 3, nullptr)), "");
  // The last call ran at position 2.
  std::vector<float> y = readback();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(y[i], chainW(i) * chainX(i) + 2.0f) << "i = " << i;
}

TEST_F(SessionTest, ChainWithBarriersReplaysOverTokens) {
  ASSERT_EQ(open(chainPlan(), writeChainWeights(dir_)), "");
  std::vector<float> expected(8, 0.0f);
  const int32_t tokens[] = {5, 0, 7, 2};
  for (int step = 0; step < 4; ++step) {
    kiln_step_result_t result{};
    ASSERT_EQ(describe(kiln_session_step(session_, tokens[step], &result)), "");
    for (int i = 0; i < 8; ++i)
      expected[i] += 2.0f * (chainW(i) * chainX(i) + static_cast<float>(step)) +
                     static_cast<float>(tokens[step]);
    std::vector<float> s = readback();
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(s[i], expected[i]) << "step " << step << " i " << i;
    // Greedy picks the largest accumulated value: the last (w=8, x=1.25).
    EXPECT_EQ(result.token, 7);
    EXPECT_EQ(result.logprob, expected[7]);
  }
  EXPECT_EQ(kiln_session_position(session_), 4u);

  kiln_session_stats_t stats;
  ASSERT_EQ(describe(kiln_session_stats(session_, &stats)), "");
  EXPECT_EQ(stats.dispatches_per_token, 3u);
  // Entry barrier, two plan barriers (the first dispatch needs none), copy, host read.
  EXPECT_EQ(stats.barriers_per_token, 5u);
  EXPECT_EQ(stats.tokens, 4u);
  EXPECT_EQ(stats.calls, 4u);
  // Bound ranges: axpy 32+32+32+16, scale 32+32+16, accumulate 32+32.
  EXPECT_EQ(stats.bytes_per_token, 112u + 80u + 64u);
  EXPECT_GT(stats.ms_per_token, 0.0);
}

TEST_F(SessionTest, ResetZeroesStateAndPosition) {
  ASSERT_EQ(open(chainPlan(), writeChainWeights(dir_)), "");
  ASSERT_EQ(describe(kiln_session_step(session_, 4, nullptr)), "");
  ASSERT_EQ(describe(kiln_session_step(session_, 4, nullptr)), "");
  ASSERT_EQ(describe(kiln_session_reset(session_)), "");
  EXPECT_EQ(kiln_session_position(session_), 0u);
  std::vector<float> none(8);
  EXPECT_NE(describe(kiln_session_read_logprobs(session_, none.data(), 8)).find("FAILED_PRECONDITION"),
            std::string::npos);
  ASSERT_EQ(describe(kiln_session_step(session_, 1, nullptr)), "");
  std::vector<float> s = readback();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(s[i], 2.0f * chainW(i) * chainX(i) + 1.0f) << "i = " << i;
}

// A first-call dispatch (Dory's landmark seal) runs in the first call after the
// session is created or reset and in no other; its barrier moves to the next dispatch.
TEST_F(SessionTest, FirstCallDispatchRunsOnlyInTheFirstCall) {
  PlanSpec spec = chainPlan();
  spec.programs[0].dispatches[2].calls = kp::DispatchCalls::First; // accumulate
  ASSERT_EQ(open(spec, writeChainWeights(dir_), /*profiling=*/true), "");
  for (int round = 0; round < 2; ++round) {
    const int32_t tokens[] = {5, 0, 7};
    for (int step = 0; step < 3; ++step) {
      ASSERT_EQ(describe(kiln_session_step(session_, tokens[step], nullptr)), "");
      // s holds the first call's z alone: 2 (w x + 0) + 5.
      std::vector<float> s = readback();
      for (int i = 0; i < 8; ++i)
        EXPECT_EQ(s[i], 2.0f * chainW(i) * chainX(i) + 5.0f)
            << "round " << round << " step " << step << " i " << i;
    }
    ASSERT_EQ(describe(kiln_session_reset(session_)), "");
  }
  kiln_session_stats_t stats;
  ASSERT_EQ(describe(kiln_session_stats(session_, &stats)), "");
  EXPECT_EQ(stats.dispatches_per_token, 2u);
  // The profile lists what a later call runs.
  std::vector<kiln_dispatch_profile_t> entries = profileEntries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_STREQ(entries[0].label, "axpy");
  EXPECT_STREQ(entries[1].label, "scale");
  EXPECT_EQ(entries[1].kernel, 1u);
}

TEST_F(SessionTest, FirstCallDispatchPassesItsBarrierOn) {
  PlanSpec spec = chainPlan();
  spec.programs[0].dispatches[1].calls = kp::DispatchCalls::First; // scale
  spec.programs[0].dispatches[2].barrier = false;                  // accumulate
  ASSERT_EQ(open(spec, writeChainWeights(dir_)), "");
  ASSERT_EQ(describe(kiln_session_step(session_, 3, nullptr)), "");
  ASSERT_EQ(describe(kiln_session_step(session_, 3, nullptr)), "");
  kiln_session_stats_t stats;
  ASSERT_EQ(describe(kiln_session_stats(session_, &stats)), "");
  EXPECT_EQ(stats.dispatches_per_token, 2u);
  // Entry barrier, scale's barrier before accumulate, copy, host read.
  EXPECT_EQ(stats.barriers_per_token, 4u);
  // z stays the first call's (scale ran once): s = 2 z.
  std::vector<float> s = readback();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(s[i], 2.0f * (2.0f * chainW(i) * chainX(i) + 3.0f)) << "i = " << i;
}

TEST_F(SessionTest, PrefillWithoutPrefillProgramRunsDecodePerToken) {
  ASSERT_EQ(open(chainPlan(), writeChainWeights(dir_)), "");
  const std::vector<int32_t> prompt = {1, 2, 3};
  ASSERT_EQ(describe(kiln_session_prefill(session_, prompt.data(), prompt.size(), nullptr)), "");
  EXPECT_EQ(kiln_session_position(session_), 3u);
  std::vector<float> s = readback();
  for (int i = 0; i < 8; ++i) {
    float expected = 0;
    for (int p = 0; p < 3; ++p)
      expected += 2.0f * (chainW(i) * chainX(i) + p) + prompt[p];
    EXPECT_EQ(s[i], expected) << "i = " << i;
  }
}

// The parameter block follows each field's rule, for decode and for multi-row prefill.
TEST_F(SessionTest, ParameterRulesInDecodeAndPrefill) {
  using A = kp::Access;
  PlanSpec spec = chainPlan();
  spec.kernels = {{"param_probe", loadKernel("param_probe"), {4, 1, 1},
                   {{0, 1, A::Write}, {1, 4, A::Read, kp::DescriptorKind::UniformBuffer}}}};
  ProgramSpec decode{"decode", 1, {{0, {2, 1, 1}, true, "probe"}}, ReadbackSpec{1, 0, 5, 0, 8}};
  ProgramSpec prefill{"prefill", 4, {{0, {2, 1, 1}, true, "probe"}}, ReadbackSpec{1, 0, 5, 0, 8}};
  spec.programs = {decode, prefill};
  ASSERT_EQ(open(spec, writeChainWeights(dir_)), "");

  const std::vector<int32_t> prompt = {1, 2, 3, 4, 5, 6};
  ASSERT_EQ(describe(kiln_session_prefill(session_, prompt.data(), prompt.size(), nullptr)), "");
  EXPECT_EQ(kiln_session_position(session_), 6u);
  // Calls of 4 and 2 rows; the last starts at position 4 with token 5.
  std::vector<float> y = readback();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(y[i], 5 + 100 * 4 + 10000 * (4 % 3) + 1000000 * 2 + i) << "i = " << i;

  ASSERT_EQ(describe(kiln_session_step(session_, 7, nullptr)), "");
  y = readback();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(y[i], 7 + 100 * 6 + 10000 * (6 % 3) + 1000000 * 1 + i) << "i = " << i;
}

// kiln_session_seek: the next token's parameters carry the sought position; a position
// at max_position is refused and leaves the session where it was.
TEST_F(SessionTest, SeekStartsTheNextTokenThere) {
  using A = kp::Access;
  PlanSpec spec = chainPlan();
  spec.maxPosition = 2000;
  spec.kernels = {{"param_probe", loadKernel("param_probe"), {4, 1, 1},
                   {{0, 1, A::Write}, {1, 4, A::Read, kp::DescriptorKind::UniformBuffer}}}};
  spec.programs = {ProgramSpec{"decode", 1, {{0, {2, 1, 1}, true, "probe"}},
                               ReadbackSpec{1, 0, 5, 0, 8}}};
  ASSERT_EQ(open(spec, writeChainWeights(dir_)), "");
  ASSERT_EQ(describe(kiln_session_seek(session_, 1000)), "");
  EXPECT_EQ(kiln_session_position(session_), 1000u);
  ASSERT_EQ(describe(kiln_session_step(session_, 7, nullptr)), "");
  EXPECT_EQ(kiln_session_position(session_), 1001u);
  std::vector<float> y = readback();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(y[i], 7 + 100 * 1000 + 10000 * (1000 % 3) + 1000000 * 1 + i) << "i = " << i;
  EXPECT_EQ(describe(kiln_session_seek(session_, 2000)),
            "OUT_OF_RANGE: seek: position 2000 is at or past the plan's max_position 2000");
  EXPECT_EQ(kiln_session_position(session_), 1001u);
  EXPECT_EQ(describe(kiln_session_seek(nullptr, 0)),
            "INVALID_ARGUMENT: kiln_session_seek: session is null");
}

TEST_F(SessionTest, ProfilingReportsEveryDispatch) {
  ASSERT_EQ(open(chainPlan(), writeChainWeights(dir_), /*profiling=*/true), "");
  ASSERT_EQ(describe(kiln_session_step(session_, 1, nullptr)), "");
  // One call: the warm-up call is all there is, and is reported.
  kiln_dispatch_profile_t first[3];
  size_t count = 0;
  ASSERT_EQ(describe(kiln_session_profile(session_, first, 3, &count)), "");
  EXPECT_EQ(first[0].calls, 1u);
  ASSERT_EQ(describe(kiln_session_step(session_, 1, nullptr)), "");
  ASSERT_EQ(describe(kiln_session_step(session_, 1, nullptr)), "");
  std::vector<kiln_dispatch_profile_t> entries = profileEntries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_STREQ(entries[0].label, "axpy");
  EXPECT_STREQ(entries[2].label, "accumulate");
  EXPECT_EQ(entries[1].kernel, 1u);
  // Three calls: the first (the warm-up) is left out.
  EXPECT_EQ(entries[0].calls, 2u);
  EXPECT_GE(entries[0].total_ms, 0.0);
}

TEST_F(SessionTest, PollingAndBlockingGiveTheSameResult) {
  std::vector<float> results[2];
  for (kiln_wait_mode_t mode : {KILN_WAIT_POLL, KILN_WAIT_BLOCK}) {
    ASSERT_EQ(open(chainPlan(), writeChainWeights(dir_), false, mode), "");
    ASSERT_EQ(describe(kiln_session_step(session_, 1, nullptr)), "");
    ASSERT_EQ(describe(kiln_session_step(session_, 2, nullptr)), "");
    results[mode == KILN_WAIT_BLOCK] = readback();
    kiln_session_stats_t stats;
    ASSERT_EQ(describe(kiln_session_stats(session_, &stats)), "");
    EXPECT_GE(stats.decode_submit_ms, 0.0);
    EXPECT_LE(stats.decode_submit_ms, stats.decode_ms);
    kiln_session_release(session_);
    session_ = nullptr;
    kiln_plan_release(plan_);
    plan_ = nullptr;
  }
  EXPECT_EQ(results[0], results[1]);
}

TEST_F(SessionTest, GenerateWithoutADevicePickStepsOneTokenAtATime) {
  // The chain plan has no sampling.greedy: generate() is step() in a loop.
  std::vector<kiln_step_result_t> stepped(3), generated(3);
  ASSERT_EQ(open(chainPlan(), writeChainWeights(dir_)), "");
  int32_t token = 1;
  for (auto &result : stepped) {
    ASSERT_EQ(describe(kiln_session_step(session_, token, &result)), "");
    token = result.token;
  }
  ASSERT_EQ(describe(kiln_session_reset(session_)), "");
  ASSERT_EQ(describe(kiln_session_generate(session_, 1, generated.size(), generated.data())), "");
  for (size_t i = 0; i < stepped.size(); ++i) {
    EXPECT_EQ(generated[i].token, stepped[i].token) << i;
    EXPECT_EQ(generated[i].logprob, stepped[i].logprob) << i;
  }
  EXPECT_EQ(kiln_session_position(session_), 3u);
  kiln_session_stats_t stats;
  ASSERT_EQ(describe(kiln_session_stats(session_, &stats)), "");
  EXPECT_EQ(stats.decode_calls, 6u);
  EXPECT_EQ(describe(kiln_session_generate(session_, 1, 1, nullptr)),
            "INVALID_ARGUMENT: kiln_session_generate: null argument");
}

TEST_F(SessionTest, GenerateUntilStopsAfterTheStopToken) {
  // Without a device pick, generate_until steps one token a call and ends after the
  // first step that picks the stop token; the session stands there.
  std::vector<kiln_step_result_t> stepped(4), generated(4);
  ASSERT_EQ(open(chainPlan(), writeChainWeights(dir_)), "");
  ASSERT_EQ(describe(kiln_session_generate(session_, 1, stepped.size(), stepped.data())), "");
  ASSERT_EQ(describe(kiln_session_reset(session_)), "");
  const int32_t stop = stepped[1].token;
  size_t count = 99;
  ASSERT_EQ(describe(kiln_session_generate_until(session_, 1, generated.size(), stop,
                                                 generated.data(), &count)),
            "");
  size_t first = 0;
  while (stepped[first].token != stop)
    ++first;
  EXPECT_EQ(count, first + 1);
  for (size_t i = 0; i < count; ++i)
    EXPECT_EQ(generated[i].token, stepped[i].token) << i;
  EXPECT_EQ(kiln_session_position(session_), count);
  EXPECT_EQ(describe(kiln_session_generate_until(session_, 1, 1, -1, generated.data(), &count)),
            "OUT_OF_RANGE: kiln_session_generate_until: stop token -1 is negative");
  EXPECT_EQ(describe(kiln_session_generate_until(session_, 1, 1, 8, generated.data(), &count)),
            "OUT_OF_RANGE: generate: stop token 8 out of range: vocab_size is 8");
  EXPECT_EQ(describe(kiln_session_generate_until(session_, 1, 1, 0, generated.data(), nullptr)),
            "INVALID_ARGUMENT: kiln_session_generate_until: null argument");
}

TEST_F(SessionTest, UnknownWaitModeIsRefused) {
  EXPECT_EQ(open(chainPlan(), writeChainWeights(dir_), false, static_cast<kiln_wait_mode_t>(7)),
            "INVALID_ARGUMENT: kiln_session_create: wait_mode 7 is not a kiln_wait_mode_t");
}

// Issue 12: valid SPIR-V whose workgroup index comes from the token. Bounded, every store
// lands inside the 4-float array (in its last element), so each workgroup reads back 7;
// unbounded it would write 5 * 65536 floats past the array.
TEST_F(SessionTest, RobustKernelsKeepWorkgroupIndicesInTheArray) {
  using A = kp::Access;
  PlanSpec spec = chainPlan();
  spec.kernels = {{"workgroup_oob", loadKernel("workgroup_oob"), {4, 1, 1},
                   {{0, 1, A::Write}, {1, 4, A::Read, kp::DescriptorKind::UniformBuffer}}}};
  spec.programs = {ProgramSpec{"decode", 1, {{0, {2, 1, 1}, true, "oob"}},
                               ReadbackSpec{1, 0, 5, 0, 8}}};
  ASSERT_EQ(open(spec, writeChainWeights(dir_), false, KILN_WAIT_AUTO, KILN_ROBUST_ON), "");
  ASSERT_EQ(describe(kiln_session_step(session_, 5, nullptr)), "");
  std::vector<float> y = readback();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(y[i], 7.0f) << "i = " << i;
}

TEST_F(SessionTest, UnknownRobustModeIsRefused) {
  kiln_robust_mode_t bogus;
  const int value = 7;
  std::memcpy(&bogus, &value, sizeof bogus);
  EXPECT_EQ(open(chainPlan(), writeChainWeights(dir_), false, KILN_WAIT_AUTO, bogus),
            "INVALID_ARGUMENT: kiln_session_create: robust_kernels 7 is not a kiln_robust_mode_t");
}

TEST_F(SessionTest, TimeKernelsOncePerKernelInProgramOrder) {
  PlanSpec spec = chainPlan();
  // accumulate runs twice a token: one entry, two dispatches.
  spec.programs[0].dispatches.push_back({2, {2, 1, 1}, true, "accumulate again"});
  ASSERT_EQ(open(spec, writeChainWeights(dir_)), "");
  ASSERT_EQ(describe(kiln_session_step(session_, 1, nullptr)), "");
  size_t count = 0;
  ASSERT_EQ(describe(kiln_session_time_kernels(session_, 3, 1 << 20, nullptr, 0, &count)), "");
  ASSERT_EQ(count, 3u);
  std::vector<kiln_kernel_timing_t> t(count);
  ASSERT_EQ(describe(kiln_session_time_kernels(session_, 3, 1 << 20, t.data(), count, &count)), "");
  EXPECT_STREQ(t[0].kernel_name, "axpy_position");
  EXPECT_STREQ(t[0].label, "axpy");
  EXPECT_STREQ(t[2].label, "accumulate");
  EXPECT_EQ(t[2].kernel, 2u);
  EXPECT_EQ(t[0].dispatches, 1u);
  EXPECT_EQ(t[2].dispatches, 2u);
  // Bound ranges: 32 + 32 + y (32) + params (16); y + z + params; z + s.
  EXPECT_EQ(t[0].bound_bytes, 112u);
  EXPECT_EQ(t[1].bound_bytes, 80u);
  EXPECT_EQ(t[2].bound_bytes, 64u);
  for (const kiln_kernel_timing_t &k : t) {
    EXPECT_GE(k.min_us, 0.0);
    EXPECT_LE(k.min_us, k.median_us);
  }
  EXPECT_EQ(describe(kiln_session_time_kernels(session_, 0, 0, t.data(), count, &count)),
            "INVALID_ARGUMENT: time kernels: repetitions 0 is not in [1, 1000]");
  EXPECT_EQ(describe(kiln_session_time_kernels(session_, 3, 0, t.data(), count, nullptr)),
            "INVALID_ARGUMENT: kiln_session_time_kernels: null argument");
  // Timing leaves the session usable (its state is then no model's).
  EXPECT_EQ(describe(kiln_session_reset(session_)), "");
  EXPECT_EQ(describe(kiln_session_step(session_, 1, nullptr)), "");
}

TEST_F(SessionTest, ProfileWithoutProfilingIsRefused) {
  ASSERT_EQ(open(chainPlan(), writeChainWeights(dir_)), "");
  size_t count = 0;
  EXPECT_EQ(describe(kiln_session_profile(session_, nullptr, 0, &count)),
            "FAILED_PRECONDITION: profile: the session was created without enable_profiling");
}

TEST_F(SessionTest, TokenOutOfVocabulary) {
  ASSERT_EQ(open(chainPlan(), writeChainWeights(dir_)), "");
  EXPECT_EQ(describe(kiln_session_step(session_, 8, nullptr)),
            "OUT_OF_RANGE: token 8 (at 0) out of range: vocab_size is 8");
  // Bad input does not fail the session.
  EXPECT_EQ(describe(kiln_session_step(session_, 1, nullptr)), "");
}

TEST_F(SessionTest, PositionPastMaxPosition) {
  PlanSpec spec = chainPlan();
  spec.maxPosition = 2;
  ASSERT_EQ(open(spec, writeChainWeights(dir_)), "");
  const std::vector<int32_t> prompt = {1, 2, 3};
  EXPECT_EQ(describe(kiln_session_prefill(session_, prompt.data(), 3, nullptr)),
            "OUT_OF_RANGE: position 2 would reach the plan's max_position 2");
}

// The upload reports the file's bytes of each weight (w: 32 F32 bytes, then x: 16 F16
// bytes, placed as 32 F32 bytes), from 0 to the total.
TEST_F(SessionTest, UploadProgressReportsFileBytes) {
  auto bytes = buildPlan(chainPlan());
  ASSERT_EQ(describe(kiln_plan_load_memory(instance_, bytes.data(), bytes.size(), &plan_)), "");
  std::string weights = writeChainWeights(dir_);
  std::vector<std::pair<uint64_t, uint64_t>> reports;
  kiln_session_options_t options;
  kiln_session_options_init(&options);
  EXPECT_EQ(options.upload_progress, nullptr);
  options.weights_path = weights.c_str();
  options.upload_progress = [](void *user, uint64_t done, uint64_t total) {
    static_cast<std::vector<std::pair<uint64_t, uint64_t>> *>(user)->emplace_back(done, total);
  };
  options.upload_progress_user_data = &reports;
  ASSERT_EQ(describe(kiln_session_create(plan_, &options, &session_)), "");
  EXPECT_EQ(reports, (std::vector<std::pair<uint64_t, uint64_t>>{{0, 48}, {32, 48}, {48, 48}}));
}

TEST_F(SessionTest, MissingWeightsFile) {
  EXPECT_EQ(open(chainPlan(), dir_ + "/none.safetensors"),
            "NOT_FOUND: weights '" + dir_ + "/none.safetensors': file not found");
}

TEST_F(SessionTest, WeightTensorMissing) {
  PlanSpec spec = chainPlan();
  spec.weights[1].name = "x2";
  std::string path = writeChainWeights(dir_);
  EXPECT_EQ(open(spec, path), "NOT_FOUND: weights '" + path + "': tensor 'x2' (plan weights[1]) is missing");
}

TEST_F(SessionTest, WeightTensorWrongDtype) {
  PlanSpec spec = chainPlan();
  spec.weights[0].dtype = kp::DType::F16;
  spec.weights[0].layout = kp::WeightLayout::Copy;
  std::string path = writeChainWeights(dir_);
  EXPECT_EQ(open(spec, path), "INVALID_ARGUMENT: weights '" + path +
                                  "': tensor 'w' (plan weights[0]) has dtype F32, the plan expects F16");
}

TEST_F(SessionTest, WeightTensorWrongShape) {
  PlanSpec spec = chainPlan();
  spec.weights[1].shape = {4, 2};
  std::string path = writeChainWeights(dir_);
  EXPECT_EQ(open(spec, path), "INVALID_ARGUMENT: weights '" + path +
                                  "': tensor 'x' (plan weights[1]) has shape [2, 4], the plan "
                                  "expects [4, 2]");
}

TEST_F(SessionTest, CorruptWeightsFile) {
  std::string path = dir_ + "/bad.safetensors";
  FILE *file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::fputs("not a safetensors file", file);
  std::fclose(file);
  EXPECT_EQ(open(chainPlan(), path).rfind("INVALID_ARGUMENT: weights: ", 0), 0u);
}

// A device flag is reset by a fill recorded at the start of the program, every call:
// here it is s[0] (bits of 100.0f), so s[0] = 100 + z[0] after each token.
TEST_F(SessionTest, DeviceFlagsAreResetEveryCall) {
  PlanSpec spec = chainPlan();
  uint32_t hundred;
  float value = 100.0f;
  std::memcpy(&hundred, &value, 4);
  spec.flags = {{"exit_flag", 3, 0, hundred}};
  ASSERT_EQ(open(spec, writeChainWeights(dir_)), "");
  for (int step = 0; step < 3; ++step) {
    ASSERT_EQ(describe(kiln_session_step(session_, 2, nullptr)), "");
    std::vector<float> s = readback();
    EXPECT_EQ(s[0], 100.0f + 2.0f * (chainW(0) * chainX(0) + step) + 2.0f) << "step " << step;
  }
}

TEST_F(SessionTest, DeviceFlagInWeightBufferIsRefused) {
  PlanSpec spec = chainPlan();
  spec.flags = {{"exit_flag", 0, 4, 0}};
  auto bytes = buildPlan(spec);
  EXPECT_EQ(describe(kiln_plan_load_memory(instance_, bytes.data(), bytes.size(), &plan_)),
            "INVALID_ARGUMENT: plan device_flags[0] 'exit_flag': lives in a Weight buffer");
}

TEST_F(SessionTest, OutOfDeviceMemoryIsAStatus) {
  PlanSpec spec = chainPlan();
  spec.buffers[2].size = 1ull << 42; // 4 TiB of scratch
  spec.kernels[1].bindings[1].range = 32;
  spec.kernels[2].bindings[0].range = 32;
  std::string error = open(spec, writeChainWeights(dir_));
  // Drivers refuse at vkCreateBuffer or at vkAllocateMemory; both are this status.
  EXPECT_EQ(error.rfind("RESOURCE_EXHAUSTED: session buffer 2 'z': ", 0), 0u) << error;
}

// Release order does not matter: the session keeps its plan and instance alive.
TEST_F(SessionTest, ReleaseInAnyOrder) {
  ASSERT_EQ(open(chainPlan(), writeChainWeights(dir_)), "");
  kiln_instance_release(instance_);
  instance_ = nullptr;
  kiln_plan_release(plan_);
  plan_ = nullptr;
  EXPECT_EQ(describe(kiln_session_step(session_, 1, nullptr)), "");
}

} // namespace
} // namespace kiln::test
