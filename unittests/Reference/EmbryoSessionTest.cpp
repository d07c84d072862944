//===- EmbryoSessionTest.cpp - Embryo's whole token step ------------------===//

#include "TestModels.h"

#include "kiln/IO/Safetensors.h"
#include "kiln/Reference/Activations.h"
#include "kiln/Reference/EmbryoSession.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

using namespace kiln;
using namespace kiln::ref;
using namespace kiln::ref::test;

namespace {

std::vector<int> greedy(EmbryoSession &session, const std::vector<int> &prompt,
                        int steps) {
  io::Expected<std::vector<float>> lp = io::Error("no step");
  for (int t : prompt)
    lp = session.step(t);
  std::vector<int> out;
  for (int i = 0; i < steps; ++i) {
    EXPECT_TRUE(lp.hasValue()) << lp.error().message();
    if (!lp)
      return out;
    const int token = static_cast<int>(argMax(*lp));
    out.push_back(token);
    lp = session.step(token);
  }
  return out;
}

class EmbryoFormats : public ::testing::TestWithParam<io::WeightFormat> {};

} // namespace

TEST_P(EmbryoFormats, SixtyFourGreedyTokensDoNotCollapse) {
  auto model = makeEmbryo(exampleConfig("embryo-tiny"), GetParam());
  ASSERT_TRUE(model);
  EmbryoSession session(model);
  const std::vector<int> tokens = greedy(session, {1, 2, 3}, 64);
  ASSERT_EQ(tokens.size(), 64u);
  expectNoCollapse(tokens);
}

INSTANTIATE_TEST_SUITE_P(Reference, EmbryoFormats,
                         ::testing::Values(io::WeightFormat::F16,
                                           io::WeightFormat::Q8_2F));

TEST(EmbryoSession, Q8CloseToF16) {
  const io::ModelConfig config = exampleConfig("embryo-tiny");
  auto f16 = makeEmbryo(config, io::WeightFormat::F16);
  auto q8 = makeEmbryo(config, io::WeightFormat::Q8_2F);
  ASSERT_TRUE(f16 && q8);
  EmbryoSession a(f16), b(q8);
  // The same token stream into both (teacher forcing): only the weights
  // differ. The router is a hard choice, so a near-tie can pick another
  // expert under q8_2f and the states part from there: the log-prob bound
  // holds while every routing decision so far has agreed.
  float worstWhileRoutedAlike = 0.0f, worst = 0.0f;
  size_t agree = 0, routedAlike = 0;
  bool divergedRouting = false;
  const int steps = 32;
  int token = 1;
  for (int i = 0; i < steps; ++i) {
    auto la = a.step(token), lb = b.step(token);
    ASSERT_TRUE(la && lb);
    const bool sameRoute = a.lastExperts() == b.lastExperts();
    routedAlike += sameRoute;
    divergedRouting = divergedRouting || !sameRoute;
    const float diff = maxAbsDifference(*la, *lb);
    worst = std::max(worst, diff);
    if (!divergedRouting)
      worstWhileRoutedAlike = std::max(worstWhileRoutedAlike, diff);
    agree += argMax(*la) == argMax(*lb);
    token = static_cast<int>(argMax(*la));
  }
  std::printf("embryo-tiny q8_2f vs f16: max |dlogp| %.4g while routed alike, "
              "%.4g overall; routing agrees %zu/%d, argmax %zu/%d\n",
              static_cast<double>(worstWhileRoutedAlike),
              static_cast<double>(worst), routedAlike, steps, agree, steps);
  EXPECT_LT(worstWhileRoutedAlike, 0.15f);
  EXPECT_GE(routedAlike, static_cast<size_t>(steps * 3 / 4));
  EXPECT_GE(agree, static_cast<size_t>(steps * 3 / 4));
}

TEST(EmbryoSession, UngatedHeadSumsToOneEveryStep) {
  auto model = makeEmbryo(exampleConfig("embryo-tiny"), io::WeightFormat::F16);
  ASSERT_TRUE(model);
  EmbryoSession session(model);
  for (int token : {5, 9, 200, 17, 3, 3, 3, 250}) {
    auto lp = session.step(token);
    ASSERT_TRUE(lp);
    double sum = 0;
    for (float v : *lp)
      sum += std::exp(static_cast<double>(v));
    EXPECT_NEAR(sum, 1.0, 1e-4);
  }
}

TEST(EmbryoSession, TopPGateDropsClustersAndKeepsTheRestExact) {
  auto model = makeEmbryo(exampleConfig("embryo-tiny"), io::WeightFormat::F16);
  ASSERT_TRUE(model);
  EmbryoSession all(model), gated(model);
  gated.setHeadTopP(0.5f);
  const size_t cs = static_cast<size_t>(model->config.embryo.clusterSize);
  size_t droppedSomewhere = 0;
  for (int token : {1, 2, 3, 4, 5, 6}) {
    auto a = all.step(token), g = gated.step(token);
    ASSERT_TRUE(a && g);
    const float gate = gated.lastHeadGate();
    EXPECT_TRUE(std::isfinite(gate));
    double keptMass = 0;
    for (size_t c = 0; c * cs < a->size(); ++c) {
      double clusterMass = 0;
      for (size_t j = 0; j < cs; ++j)
        clusterMass += std::exp(static_cast<double>((*a)[c * cs + j]));
      const bool open = std::log(clusterMass) >= gate - 1e-5;
      for (size_t j = 0; j < cs; ++j) {
        const float v = (*g)[c * cs + j];
        if (std::isinf(v)) {
          EXPECT_LT(std::log(clusterMass), gate + 1e-5);
          ++droppedSomewhere;
        } else {
          EXPECT_EQ(v, (*a)[c * cs + j]);
          EXPECT_TRUE(open);
        }
      }
      if (!std::isinf((*g)[c * cs]))
        keptMass += clusterMass;
    }
    EXPECT_GE(keptMass, 0.5 - 1e-4); // the open set reaches top_p
  }
  EXPECT_GT(droppedSomewhere, 0u);
}

TEST(EmbryoSession, FixedGateMinusInfinityComputesAll) {
  auto model = makeEmbryo(exampleConfig("embryo-tiny"), io::WeightFormat::F16);
  ASSERT_TRUE(model);
  EmbryoSession session(model);
  session.setHeadGate(0.0f); // log 1: every cluster is below it
  auto none = session.step(1);
  ASSERT_TRUE(none);
  for (float v : *none)
    EXPECT_TRUE(std::isinf(v));
  session.setHeadGate(-INFINITY);
  auto every = session.step(2);
  ASSERT_TRUE(every);
  for (float v : *every)
    EXPECT_TRUE(std::isfinite(v));
}

TEST(EmbryoSession, ResetReproducesAndRoutesEveryMoeLayer) {
  auto model = makeEmbryo(exampleConfig("embryo-tiny"), io::WeightFormat::F16);
  ASSERT_TRUE(model);
  EmbryoSession session(model);
  const std::vector<int> first = greedy(session, {7, 8}, 20);
  EXPECT_EQ(session.lastExperts().size(),
            model->config.embryo.moe->layers.size());
  EXPECT_EQ(session.position(), 22u);
  session.reset();
  EXPECT_EQ(session.position(), 0u);
  EXPECT_EQ(greedy(session, {7, 8}, 20), first);
}

TEST(EmbryoSession, BadTokensAndPositionsAreErrors) {
  io::ModelConfig config = exampleConfig("embryo-tiny");
  config.maxPosition = 2;
  auto model = makeEmbryo(config, io::WeightFormat::F16);
  ASSERT_TRUE(model);
  EmbryoSession session(model);
  auto bad = session.step(256);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("token 256 is outside"),
            std::string::npos);
  EXPECT_FALSE(session.step(-1));
  EXPECT_TRUE(session.step(0));
  EXPECT_TRUE(session.step(0));
  auto past = session.step(0);
  ASSERT_FALSE(past);
  EXPECT_NE(past.error().message().find("max_position"), std::string::npos);
}

TEST(EmbryoSession, WrongWeightsAreNamedErrors) {
  const io::ModelConfig embryo = exampleConfig("embryo-tiny");
  const io::ModelConfig dory = exampleConfig("dory-tiny");
  const std::string path = writeWeights(dory, io::WeightFormat::F16);
  ASSERT_FALSE(path.empty());
  {
    auto file = io::SafetensorsFile::open(path);
    ASSERT_TRUE(file);
    auto model = loadEmbryoModel(embryo, *file);
    ASSERT_FALSE(model);
    EXPECT_FALSE(model.error().message().empty());
    auto family = loadEmbryoModel(dory, *file);
    ASSERT_FALSE(family);
    EXPECT_NE(family.error().message().find("expected 'embryo'"),
              std::string::npos);
  }
  std::remove(path.c_str());
}
