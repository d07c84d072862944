//===- DorySessionTest.cpp - Dory's looped block and far field ------------===//

#include "TestModels.h"

#include "kiln/Reference/Activations.h"
#include "kiln/Reference/DorySession.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace kiln;
using namespace kiln::ref;
using namespace kiln::ref::test;

namespace {

std::vector<int> greedy(DorySession &session, const std::vector<int> &prompt,
                        int steps) {
  auto lp = session.forward(prompt);
  std::vector<int> out;
  for (int i = 0; i < steps; ++i) {
    EXPECT_TRUE(lp.hasValue()) << lp.error().message();
    if (!lp)
      return out;
    const int token = static_cast<int>(argMax(*lp));
    out.push_back(token);
    lp = session.forward({token});
  }
  return out;
}

std::vector<int> promptOf(size_t n) {
  std::vector<int> p;
  for (size_t i = 0; i < n; ++i)
    p.push_back(static_cast<int>((i * 37 + 11) % 256));
  return p;
}

class DoryFormats : public ::testing::TestWithParam<io::WeightFormat> {};

} // namespace

TEST_P(DoryFormats, SixtyFourGreedyTokensDoNotCollapse) {
  auto model = makeDory(exampleConfig("dory-tiny"), GetParam());
  ASSERT_TRUE(model);
  DorySession session(model);
  const std::vector<int> tokens = greedy(session, {1, 2, 3}, 64);
  ASSERT_EQ(tokens.size(), 64u);
  expectNoCollapse(tokens);
}

INSTANTIATE_TEST_SUITE_P(Reference, DoryFormats,
                         ::testing::Values(io::WeightFormat::F16,
                                           io::WeightFormat::Q8_2F));

TEST(DorySession, Q8CloseToF16) {
  const io::ModelConfig config = exampleConfig("dory-tiny");
  auto f16 = makeDory(config, io::WeightFormat::F16);
  auto q8 = makeDory(config, io::WeightFormat::Q8_2F);
  ASSERT_TRUE(f16 && q8);
  DorySession a(f16), b(q8);
  const std::vector<int> prompt = promptOf(12);
  auto la = a.forward(prompt), lb = b.forward(prompt);
  ASSERT_TRUE(la && lb);
  float worst = maxAbsDifference(*la, *lb);
  size_t agree = argMax(*la) == argMax(*lb);
  const int steps = 32;
  for (int i = 1; i < steps; ++i) {
    const int token = static_cast<int>(argMax(*la));
    la = a.forward({token});
    lb = b.forward({token});
    ASSERT_TRUE(la && lb);
    worst = std::max(worst, maxAbsDifference(*la, *lb));
    agree += argMax(*la) == argMax(*lb);
  }
  std::printf("dory-tiny q8_2f vs f16: max |dlogp| %.4g, argmax agrees %zu/%d\n",
              static_cast<double>(worst), agree, steps);
  EXPECT_LT(worst, 0.5f);
  EXPECT_GE(agree, static_cast<size_t>(steps * 3 / 4));
}

TEST(DorySession, HiddenIsUnitAfterEverySlerpAndMix) {
  auto model = makeDory(exampleConfig("dory-tiny"), io::WeightFormat::F16);
  ASSERT_TRUE(model);
  DorySession session(model);
  size_t checked = 0;
  session.setHiddenObserver([&](const std::string &stage,
                                const std::vector<float> &h) {
    const float n = std::sqrt(dot(h.data(), h.data(), h.size()));
    EXPECT_NEAR(n, 1.0f, 1e-5) << stage;
    ++checked;
  });
  (void)greedy(session, promptOf(10), 20);
  EXPECT_GT(checked, 100u);
}

namespace {
// The order of the loop's edges and layer updates for a one-row call.
std::vector<std::string> stagesOf(DorySession &session) {
  std::vector<std::string> stages;
  session.setHiddenObserver(
      [&](const std::string &s, const std::vector<float> &) {
        stages.push_back(s);
      });
  EXPECT_TRUE(session.forward({42}).hasValue());
  session.setHiddenObserver(nullptr);
  return stages;
}
const std::vector<std::string> kPass = {"slerp_attn", "slerp_mlp",
                                        "slerp_attn", "slerp_mlp"};
std::vector<std::string> join(std::vector<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (auto &p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}
} // namespace

TEST(DorySession, LoopEdgesWithoutExitThreshold) {
  io::ModelConfig config = exampleConfig("dory-tiny");
  config.dory.loop.exitThreshold.reset();
  auto model = makeDory(config, io::WeightFormat::F16);
  ASSERT_TRUE(model);
  DorySession session(model);
  EXPECT_EQ(stagesOf(session),
            join({{"mix0"}, kPass, {"mix1"}, kPass, {"mix2"}}));
  EXPECT_EQ(session.lastPassesUsed(), 2u);
}

TEST(DorySession, LoopEdgesWhenTheReadOutIsNotConfident) {
  io::ModelConfig config = exampleConfig("dory-tiny");
  config.dory.loop.exitThreshold = 1.0; // never reached by a 256-way softmax
  auto model = makeDory(config, io::WeightFormat::F16);
  ASSERT_TRUE(model);
  DorySession session(model);
  EXPECT_EQ(stagesOf(session),
            join({{"mix0"}, kPass, {"mix3", "mix4"}, kPass, {"mix2"}}));
  EXPECT_EQ(session.lastPassesUsed(), 2u);
}

TEST(DorySession, EarlyExitReturnsTheReadOut) {
  // Threshold 1e−9: every read-out is confident; the call stops after pass 0
  // and returns what a one-pass model returns (mode 3 and mode 2 are both
  // unit(h)).
  io::ModelConfig config = exampleConfig("dory-tiny");
  config.dory.loop.exitThreshold = 1e-9;
  io::ModelConfig onePass = config;
  onePass.dory.loop.passes = 1;
  auto model = makeDory(config, io::WeightFormat::F16);
  auto single = makeDory(onePass, io::WeightFormat::F16);
  ASSERT_TRUE(model && single);
  DorySession exiting(model), reference(single);
  EXPECT_EQ(stagesOf(exiting), join({{"mix0"}, kPass, {"mix3"}}));
  EXPECT_EQ(exiting.lastPassesUsed(), 1u);
  exiting.reset();
  const std::vector<int> prompt = promptOf(11);
  auto a = exiting.forwardAllRows(prompt);
  auto b = reference.forwardAllRows(prompt);
  ASSERT_TRUE(a && b);
  for (size_t i = 0; i < prompt.size(); ++i)
    EXPECT_EQ((*a)[i], (*b)[i]) << "row " << i;
}

TEST(DorySession, MultiRowExitsOnlyWhenEveryRowIsConfident) {
  io::ModelConfig config = exampleConfig("dory-tiny");
  config.dory.loop.exitThreshold = 1.0;
  auto model = makeDory(config, io::WeightFormat::F16);
  ASSERT_TRUE(model);
  // Each row's read-out max probability, from h after mode 3.
  std::vector<double> confidence;
  DorySession probe(model);
  probe.setHiddenObserver([&](const std::string &stage,
                              const std::vector<float> &h) {
    if (stage != "mix3")
      return;
    std::vector<float> logits = matVec(model->head, h);
    for (size_t i = 0; i < logits.size(); ++i)
      logits[i] *= model->headScale[i];
    const std::vector<float> lp = logSoftmax(logits);
    confidence.push_back(std::exp(static_cast<double>(lp[argMax(lp)])));
  });
  const std::vector<int> prompt = promptOf(6);
  ASSERT_TRUE(probe.forward(prompt));
  ASSERT_EQ(confidence.size(), prompt.size());
  const double least = *std::min_element(confidence.begin(), confidence.end());
  const double most = *std::max_element(confidence.begin(), confidence.end());
  ASSERT_LT(least, most);
  auto withThreshold = [&](double threshold) {
    auto copy = std::make_shared<DoryModel>(*model);
    copy->config.dory.loop.exitThreshold = threshold;
    DorySession session(copy);
    EXPECT_TRUE(session.forward(prompt));
    return session.lastPassesUsed();
  };
  // Some rows reach the midpoint, not all: no exit.
  EXPECT_EQ(withThreshold((least + most) / 2), 2u);
  // Every row reaches the least confident row's value: exit after pass 0.
  EXPECT_EQ(withThreshold(least * (1 - 1e-6)), 1u);
}

TEST(DorySession, MultiRowEqualsOneRowWithOnePass) {
  // With one pass, "earlier rows' pass-p keys" are their final keys, so a
  // multi-row call and one-row calls must agree, far field included: the
  // same first call (it seals the landmarks), then 15 rows (> window 8) at
  // once or one by one.
  io::ModelConfig config = exampleConfig("dory-tiny");
  config.dory.loop.passes = 1;
  auto model = makeDory(config, io::WeightFormat::F16);
  ASSERT_TRUE(model);
  DorySession batched(model), stepped(model);
  const std::vector<int> prompt = promptOf(32);
  const std::vector<int> first(prompt.begin(), prompt.begin() + 17);
  const std::vector<int> rest(prompt.begin() + 17, prompt.end());
  ASSERT_TRUE(batched.forward(first));
  ASSERT_TRUE(stepped.forward(first));
  auto rows = batched.forwardAllRows(rest);
  ASSERT_TRUE(rows);
  for (size_t i = 0; i < rest.size(); ++i) {
    auto one = stepped.forward({rest[i]});
    ASSERT_TRUE(one);
    EXPECT_LT(maxAbsDifference((*rows)[i], *one), 1e-5f) << "row " << i;
  }
  EXPECT_EQ(batched.farField(1, 1).folded(), stepped.farField(1, 1).folded());
}

TEST(DorySession, MultiRowDiffersFromOneRowWithTwoPasses) {
  // The documented difference: pass 0 of row i reads earlier rows' pass-0
  // keys in a multi-row call, their final keys in one-row decode.
  io::ModelConfig config = exampleConfig("dory-tiny");
  config.dory.loop.exitThreshold.reset();
  auto model = makeDory(config, io::WeightFormat::F16);
  ASSERT_TRUE(model);
  DorySession batched(model), stepped(model);
  const std::vector<int> prompt = promptOf(6);
  auto rows = batched.forwardAllRows(prompt);
  ASSERT_TRUE(rows);
  std::vector<float> last;
  for (int token : prompt) {
    auto one = stepped.forward({token});
    ASSERT_TRUE(one);
    last = *one;
  }
  EXPECT_GT(maxAbsDifference(rows->back(), last), 1e-4f);
}

TEST(DorySession, LandmarksComeFromEveryEighthPositionOfTheFirstCall) {
  auto model = makeDory(exampleConfig("dory-tiny"), io::WeightFormat::F16);
  ASSERT_TRUE(model);
  const size_t m = 4; // dory-tiny's far_field.landmarks
  struct Case { size_t prompt, landmarks; };
  for (Case c : {Case{1, 1}, Case{3, 1}, Case{8, 1}, Case{9, 2}, Case{20, 3},
                 Case{40, m}}) {
    DorySession session(model);
    EXPECT_EQ(session.landmarkCount(0, 0), 0u);
    ASSERT_TRUE(session.forward(promptOf(c.prompt)));
    for (size_t layer = 0; layer < 2; ++layer)
      for (size_t kh = 0; kh < 2; ++kh)
        EXPECT_EQ(session.landmarkCount(layer, kh), c.landmarks)
            << "prompt " << c.prompt;
    // Sealed: a long second call adds none.
    ASSERT_TRUE(session.forward(promptOf(30)));
    EXPECT_EQ(session.landmarkCount(1, 1), c.landmarks);
  }
}

TEST(DorySession, EachKeyIsFoldedOnceWhenItLeavesTheWindow) {
  auto model = makeDory(exampleConfig("dory-tiny"), io::WeightFormat::F16);
  ASSERT_TRUE(model);
  DorySession session(model);
  const size_t window = 8;
  ASSERT_TRUE(session.forward(promptOf(5)));
  EXPECT_EQ(session.farField(0, 0).folded(), 0u);
  size_t position = 5;
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(session.forward({i}));
    ++position;
    const size_t expected = position > window ? position - window : 0;
    EXPECT_EQ(session.farField(0, 0).folded(), expected);
    EXPECT_EQ(session.farField(1, 1).folded(), expected);
  }
  ASSERT_TRUE(session.forward(promptOf(13)));
  EXPECT_EQ(session.farField(0, 1).folded(), position + 13 - window);
}

TEST(DorySession, ALaterPassRewritesThePositionsKey) {
  // Two passes without early exit store the pass-1 key of each position. A
  // one-pass model with the same weights stores the pass-0 key; at layer 0
  // pass 0 reads the entering embedding and pass 1 the mixed state, so the
  // stored keys must differ.
  io::ModelConfig config = exampleConfig("dory-tiny");
  config.dory.loop.exitThreshold.reset();
  io::ModelConfig onePass = config;
  onePass.dory.loop.passes = 1;
  auto two = makeDory(config, io::WeightFormat::F16);
  auto one = makeDory(onePass, io::WeightFormat::F16);
  ASSERT_TRUE(two && one);
  DorySession a(two), b(one);
  ASSERT_TRUE(a.forward({5, 6}));
  ASSERT_TRUE(b.forward({5, 6}));
  float gap = 0;
  for (size_t d = 0; d < 16; ++d)
    gap = std::max(gap, std::fabs(a.storedKey(0, 0, 1)[d] -
                                  b.storedKey(0, 0, 1)[d]));
  EXPECT_GT(gap, 1e-4f);
  // Still a unit key (prep's k ← unit(k)).
  EXPECT_NEAR(std::sqrt(dot(a.storedKey(0, 0, 1), a.storedKey(0, 0, 1), 16)),
              1.0f, 1e-5);
}

TEST(DorySession, BadCallsAreErrors) {
  io::ModelConfig config = exampleConfig("dory-tiny");
  config.maxPosition = 4;
  auto model = makeDory(config, io::WeightFormat::F16);
  ASSERT_TRUE(model);
  DorySession session(model);
  EXPECT_FALSE(session.forward({}));
  auto bad = session.forward({1, 999});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("row 1"), std::string::npos);
  EXPECT_EQ(session.position(), 0u);
  EXPECT_TRUE(session.forward({1, 2, 3}));
  auto past = session.forward({1, 2});
  ASSERT_FALSE(past);
  EXPECT_NE(past.error().message().find("max_position"), std::string::npos);
}

TEST(DorySession, NoFarFieldDropsLeavingKeys) {
  io::ModelConfig config = exampleConfig("dory-tiny");
  config.dory.farField.reset();
  auto model = makeDory(config, io::WeightFormat::F16);
  ASSERT_TRUE(model);
  DorySession session(model);
  const std::vector<int> tokens = greedy(session, promptOf(12), 24);
  EXPECT_EQ(session.landmarkCount(0, 0), 0u);
  expectNoCollapse(tokens);
}

// Sinks (issue 15): every other tensor of a synthetic file comes from its own
// stream, so a config with num_sinks differs from dory-tiny only by them.
TEST(DorySession, SinksAreReadAndAttendedInEveryPath) {
  io::ModelConfig plain = exampleConfig("dory-tiny");
  plain.dory.loop.exitThreshold.reset();
  io::ModelConfig config = plain;
  config.dory.numSinks = 3;
  auto model = makeDory(config, io::WeightFormat::F16);
  auto without = makeDory(plain, io::WeightFormat::F16);
  ASSERT_TRUE(model && without);
  ASSERT_EQ(model->layers[1].sinkK.size(), 2u * 3u * 16u);
  EXPECT_EQ(model->layers[1].sinkK.size(), model->layers[1].sinkV.size());
  EXPECT_TRUE(without->layers[0].sinkK.empty());

  // Near-only and with the far field, past the window: the sinks change the
  // log-probs.
  for (bool far : {true, false}) {
    auto withSinks = std::make_shared<DoryModel>(*model);
    auto noSinks = std::make_shared<DoryModel>(*without);
    if (!far) {
      withSinks->config.dory.farField.reset();
      noSinks->config.dory.farField.reset();
    }
    DorySession a(withSinks), b(noSinks);
    auto pa = a.forward(promptOf(12));
    auto pb = b.forward(promptOf(12));
    ASSERT_TRUE(pa && pb);
    EXPECT_GT(maxAbsDifference(*pa, *pb), 1e-3f) << (far ? "far" : "near-only");
  }

  // One pass: a multi-row call equals one-row calls with sinks too.
  auto onePass = std::make_shared<DoryModel>(*model);
  onePass->config.dory.loop.passes = 1;
  DorySession batched(onePass), stepped(onePass);
  const std::vector<int> prompt = promptOf(24);
  const std::vector<int> first(prompt.begin(), prompt.begin() + 9);
  const std::vector<int> rest(prompt.begin() + 9, prompt.end());
  ASSERT_TRUE(batched.forward(first));
  ASSERT_TRUE(stepped.forward(first));
  auto rows = batched.forwardAllRows(rest);
  ASSERT_TRUE(rows);
  for (size_t i = 0; i < rest.size(); ++i) {
    auto one = stepped.forward({rest[i]});
    ASSERT_TRUE(one);
    EXPECT_LT(maxAbsDifference((*rows)[i], *one), 1e-5f) << "row " << i;
  }
}

// With attn.q zeroed the prepped query is 0, so every score is 0 and each of
// the ns sinks and n window keys weighs 1/(ns + n); with attn.v zeroed the
// output is (sum of the sink values)/(ns + n). Moving sink 1's value onto
// sink 0 keeps that sum, so the log-probs must not move: both sinks of each
// KV head are read, at their own rows, with equal weight.
TEST(DorySession, SinksShareTheSoftmaxEvenlyWhenScoresTie) {
  io::ModelConfig config = exampleConfig("dory-tiny");
  config.dory.loop.exitThreshold.reset();
  config.dory.farField.reset();
  config.dory.numSinks = 2;
  auto base = makeDory(config, io::WeightFormat::F16);
  ASSERT_TRUE(base);
  auto model = std::make_shared<DoryModel>(*base);
  for (DoryLayerWeights &w : model->layers) {
    std::fill(w.q.data.begin(), w.q.data.end(), 0.0f);
    std::fill(w.v.data.begin(), w.v.data.end(), 0.0f);
  }
  auto merged = std::make_shared<DoryModel>(*model);
  for (DoryLayerWeights &w : merged->layers)
    for (size_t kh = 0; kh < 2; ++kh)
      for (size_t e = 0; e < 16; ++e) {
        float &s0 = w.sinkV[(kh * 2 + 0) * 16 + e];
        float &s1 = w.sinkV[(kh * 2 + 1) * 16 + e];
        s0 += s1;
        s1 = 0.0f;
      }
  DorySession a(model), b(merged);
  auto pa = a.forward(promptOf(11));
  auto pb = b.forward(promptOf(11));
  ASSERT_TRUE(pa && pb);
  EXPECT_LT(maxAbsDifference(*pa, *pb), 1e-5f);
}
