//===- CostModelTest.cpp - Target descriptors, cost model, partition ------===//

#include "kiln/Cost/CostModel.h"
#include "kiln/Cost/Partition.h"
#include "kiln/Cost/TargetDesc.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

using namespace kiln::cost;

namespace {

const char *kMinimal = R"({"name":"t","boundary_us":5,"boundary_no_barrier_us":1,
  "submit_us":50,"read_bandwidth_gbps":100,"single_workgroup_bandwidth_gbps":10,
  "matvec_efficiency":0.5,"compute_gflops":1000,"subgroup_size":32,
  "max_workgroup_size":256,"max_shared_memory_bytes":16384,"compute_units":10})";

TargetDesc minimal() {
  auto d = parseTargetDesc(kMinimal);
  EXPECT_TRUE(bool(d));
  return *d;
}

TEST(TargetDesc, ShippedTargetsParse) {
  for (const char *name : {"apple-m4", "rtx-2000-ada", "lavapipe", "h200"}) {
    auto d = loadTargetDesc(std::string("targets/") + name + ".json");
    ASSERT_TRUE(bool(d)) << d.error().message();
    EXPECT_EQ(d->name, name);
  }
  EXPECT_DOUBLE_EQ(loadTargetDesc("targets/apple-m4.json")->boundaryMicros, 8.0);
  EXPECT_DOUBLE_EQ(loadTargetDesc("targets/rtx-2000-ada.json")->boundaryMicros, 5.0);
}

TEST(TargetDesc, ErrorsNameTheField) {
  auto missing = parseTargetDesc(R"({"name":"t"})");
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(missing.error().message(), "target: missing field 'boundary_us'");
  std::string text = kMinimal;
  text.replace(text.find("\"compute_units\":10"), 18, "\"compute_units\":0");
  auto zero = parseTargetDesc(text);
  ASSERT_FALSE(bool(zero));
  EXPECT_NE(zero.error().message().find("'compute_units' must be > 0"), std::string::npos);
  auto unknown = parseTargetDesc(R"({"name":"t","boundary":5})");
  ASSERT_FALSE(bool(unknown));
  EXPECT_EQ(unknown.error().message(), "target: unknown field 'boundary'");
  EXPECT_FALSE(bool(parseTargetDesc("{not json")));
}

TEST(TargetDesc, SaveLoadRoundTrip) {
  TargetDesc d = minimal();
  d.boundaryMicros = 3.25;
  std::string path = testing::TempDir() + "/kiln-target.json";
  ASSERT_TRUE(bool(saveTargetDesc(d, path)));
  auto back = loadTargetDesc(path);
  ASSERT_TRUE(bool(back)) << back.error().message();
  EXPECT_DOUBLE_EQ(back->boundaryMicros, 3.25);
  EXPECT_EQ(back->computeUnits, 10u);
  std::remove(path.c_str());
}

TEST(CostModel, RooflineAndParallelism) {
  auto model = createAnalyticalCostModel(minimal());
  StageCost s;
  s.bytesRead = 1000000; // 1 MB
  s.workgroups = 1000;
  // Full device: 100 GB/s = 1e5 bytes/us -> 10 us.
  EXPECT_NEAR(model->stageMicros(s, 1000), 10.0, 1e-9);
  // One workgroup: 10 GB/s -> 100 us.
  EXPECT_NEAR(model->stageMicros(s, 1), 100.0, 1e-9);
  s.isMatvec = true; // 50% efficiency -> 20 us.
  EXPECT_NEAR(model->stageMicros(s, 1000), 20.0, 1e-9);
}

TEST(CostModel, QuantizedMatvecsHaveTheirOwnEfficiency) {
  StageCost s;
  s.bytesRead = 1000000;
  s.workgroups = 1000;
  s.isMatvec = true;
  s.quantized = true;
  // Without q8_matvec_efficiency a q8 mat-vec takes matvec_efficiency (50%).
  EXPECT_NEAR(createAnalyticalCostModel(minimal())->stageMicros(s, 1000), 20.0, 1e-9);
  TargetDesc d = minimal();
  d.q8MatvecEfficiency = 0.25; // -> 40 us; an f16 mat-vec keeps 20.
  auto model = createAnalyticalCostModel(d);
  EXPECT_NEAR(model->stageMicros(s, 1000), 40.0, 1e-9);
  s.quantized = false;
  EXPECT_NEAR(model->stageMicros(s, 1000), 20.0, 1e-9);
  auto parsed = parseTargetDesc(std::string(kMinimal).insert(1, "\"q8_matvec_efficiency\":1.5,"));
  ASSERT_FALSE(bool(parsed));
  EXPECT_EQ(parsed.error().message(), "target: field 'q8_matvec_efficiency' must be <= 1");
  auto loaded = loadTargetDesc("targets/h200.json");
  ASSERT_TRUE(bool(loaded));
  EXPECT_GT(loaded->q8MatvecEfficiency, 0.0);
  EXPECT_EQ(loaded->attentionValueDims, 8u);
  // A two-word field: the second word kept by a round trip, any other refused
  // by name.
  auto twoWordField = [](const std::string &field, const char *off, const char *on,
                         const char *bad, bool TargetDesc::*member) {
    auto with = [&](const char *word) {
      return parseTargetDesc(
          std::string(kMinimal).insert(1, "\"" + field + "\":\"" + word + "\","));
    };
    auto set = with(on);
    ASSERT_TRUE(bool(set));
    EXPECT_TRUE((*set).*member);
    auto again = parseTargetDesc(targetDescToJson(*set));
    ASSERT_TRUE(bool(again));
    EXPECT_TRUE((*again).*member);
    auto refused = with(bad);
    ASSERT_FALSE(bool(refused));
    EXPECT_EQ(refused.error().message(), "target: field '" + field + "' must be \"" + off +
                                             "\" or \"" + on + "\"");
  };
  // matvec_items: "workgroup" (the default) or "subgroup".
  EXPECT_FALSE(loaded->matvecSubgroupItems);
  twoWordField("matvec_items", "workgroup", "subgroup", "warp",
               &TargetDesc::matvecSubgroupItems);
  // q8_decode: "convert" (the default) or "exponent".
  EXPECT_FALSE(loaded->q8DecodeByExponent);
  twoWordField("q8_decode", "convert", "exponent", "shifts", &TargetDesc::q8DecodeByExponent);
  // matvec_sums, matvec_norm, matvec_grid_limit: h200.json sets scalar sums and
  // the norm after for both formats (the sums measured on the H200, the norm on
  // an H100); a round trip keeps them, anything else is refused by name.
  EXPECT_TRUE(loaded->matvecScalarSums.f16);
  EXPECT_TRUE(loaded->matvecScalarSums.q8);
  EXPECT_TRUE(loaded->matvecNormAfterDots.f16);
  EXPECT_TRUE(loaded->matvecNormAfterDots.q8);
  EXPECT_EQ(loaded->matvecGridLimit, 0u);
  // matvec_item_shape: 4 x 4 for f16, 4 x 1 for q8_2f (measured on both cards).
  EXPECT_EQ(loaded->matvecItemShape.f16.rows, 4u);
  EXPECT_EQ(loaded->matvecItemShape.f16.groups, 4u);
  EXPECT_EQ(loaded->matvecItemShape.q8.rows, 4u);
  EXPECT_EQ(loaded->matvecItemShape.q8.groups, 1u);
  // matvec_item_shape: [rows, groups] for both formats or per format, kept by a
  // round trip; out of range or an unknown format refused by name.
  auto shapes = parseTargetDesc(std::string(kMinimal).insert(
      1, "\"matvec_item_shape\":{\"q8_2f\":[4,2]},"));
  ASSERT_TRUE(bool(shapes)) << shapes.error().message();
  auto shapesAgain = parseTargetDesc(targetDescToJson(*shapes));
  ASSERT_TRUE(bool(shapesAgain));
  EXPECT_EQ(shapesAgain->matvecItemShape.f16.rows, 0u);
  EXPECT_EQ(shapesAgain->matvecItemShape.q8.rows, 4u);
  EXPECT_EQ(shapesAgain->matvecItemShape.q8.groups, 2u);
  auto both = parseTargetDesc(std::string(kMinimal).insert(1, "\"matvec_item_shape\":[2,8],"));
  ASSERT_TRUE(bool(both));
  auto bothAgain = parseTargetDesc(targetDescToJson(*both));
  ASSERT_TRUE(bool(bothAgain));
  EXPECT_EQ(bothAgain->matvecItemShape.f16.rows, 2u);
  EXPECT_EQ(bothAgain->matvecItemShape.q8.groups, 8u);
  auto tooMany = parseTargetDesc(std::string(kMinimal).insert(1, "\"matvec_item_shape\":[32,4],"));
  ASSERT_FALSE(bool(tooMany));
  EXPECT_EQ(tooMany.error().message(), "target: field 'matvec_item_shape' must be [rows, groups] "
                                       "with rows in [1, 16] and groups in [1, 64]");
  auto badFormat = parseTargetDesc(std::string(kMinimal).insert(
      1, "\"matvec_item_shape\":{\"q4\":[4,4]},"));
  ASSERT_FALSE(bool(badFormat));
  EXPECT_EQ(badFormat.error().message(),
            "target: field 'matvec_item_shape' has unknown format 'q4' (f16 or q8_2f)");
  auto badPair = parseTargetDesc(std::string(kMinimal).insert(
      1, "\"matvec_item_shape\":{\"f16\":[4]},"));
  ASSERT_FALSE(bool(badPair));
  EXPECT_EQ(badPair.error().message(), "target: field 'matvec_item_shape.f16' must be "
                                       "[rows, groups] with rows in [1, 16] and groups in [1, 64]");
  auto switches = parseTargetDesc(std::string(kMinimal).insert(
      1, "\"matvec_sums\":\"scalar\",\"matvec_norm\":\"after\",\"matvec_grid_limit\":528,"));
  ASSERT_TRUE(bool(switches));
  auto switchesAgain = parseTargetDesc(targetDescToJson(*switches));
  ASSERT_TRUE(bool(switchesAgain));
  EXPECT_TRUE(switchesAgain->matvecScalarSums.f16);
  EXPECT_TRUE(switchesAgain->matvecScalarSums.q8);
  EXPECT_TRUE(switchesAgain->matvecNormAfterDots.q8);
  // Per weight format: an object of words, kept by a round trip; a format
  // left out keeps the default; an unknown format or word refused by name.
  auto split = parseTargetDesc(std::string(kMinimal).insert(
      1, "\"matvec_sums\":{\"f16\":\"scalar\",\"q8_2f\":\"lanes\"},"
         "\"matvec_norm\":{\"q8_2f\":\"after\"},"));
  ASSERT_TRUE(bool(split)) << split.error().message();
  auto splitAgain = parseTargetDesc(targetDescToJson(*split));
  ASSERT_TRUE(bool(splitAgain));
  EXPECT_TRUE(splitAgain->matvecScalarSums.f16);
  EXPECT_FALSE(splitAgain->matvecScalarSums.q8);
  EXPECT_FALSE(splitAgain->matvecNormAfterDots.f16);
  EXPECT_TRUE(splitAgain->matvecNormAfterDots.q8);
  auto f32 = parseTargetDesc(
      std::string(kMinimal).insert(1, "\"matvec_sums\":{\"f32\":\"scalar\"},"));
  ASSERT_FALSE(bool(f32));
  EXPECT_EQ(f32.error().message(),
            "target: field 'matvec_sums' has unknown format 'f32' (f16 or q8_2f)");
  auto lateF16 = parseTargetDesc(
      std::string(kMinimal).insert(1, "\"matvec_norm\":{\"f16\":\"late\"},"));
  ASSERT_FALSE(bool(lateF16));
  EXPECT_EQ(lateF16.error().message(),
            "target: field 'matvec_norm.f16' must be \"before\" or \"after\"");
  EXPECT_EQ(switchesAgain->matvecGridLimit, 528u);
  auto pairs = parseTargetDesc(std::string(kMinimal).insert(1, "\"matvec_sums\":\"pairs\","));
  ASSERT_FALSE(bool(pairs));
  EXPECT_EQ(pairs.error().message(), "target: field 'matvec_sums' must be \"lanes\" or \"scalar\"");
  auto late = parseTargetDesc(std::string(kMinimal).insert(1, "\"matvec_norm\":1,"));
  ASSERT_FALSE(bool(late));
  EXPECT_EQ(late.error().message(), "target: field 'matvec_norm' must be \"before\" or \"after\"");
  auto huge = parseTargetDesc(std::string(kMinimal).insert(1, "\"matvec_grid_limit\":70000,"));
  ASSERT_FALSE(bool(huge));
  EXPECT_EQ(huge.error().message(),
            "target: field 'matvec_grid_limit' must be an integer in [0, 65535]");
  // The prefetch cache budget: optional (0 prefetches nothing), kept by a
  // round trip, refused when negative.
  EXPECT_EQ(minimal().prefetchCacheBytes, 0u);
  auto prefetch =
      parseTargetDesc(std::string(kMinimal).insert(1, "\"prefetch_cache_bytes\":25165824,"));
  ASSERT_TRUE(bool(prefetch)) << prefetch.error().message();
  auto prefetchAgain = parseTargetDesc(targetDescToJson(*prefetch));
  ASSERT_TRUE(bool(prefetchAgain));
  EXPECT_EQ(prefetchAgain->prefetchCacheBytes, 25165824u);
  auto negative =
      parseTargetDesc(std::string(kMinimal).insert(1, "\"prefetch_cache_bytes\":-1,"));
  ASSERT_FALSE(bool(negative));
  EXPECT_EQ(negative.error().message(),
            "target: field 'prefetch_cache_bytes' must be an integer in [0, 2^40]");
  // @prefill's rows a call: optional (0: none), kept by a round trip, refused
  // at 1 (one row a call is @decode) and past 1,024.
  EXPECT_EQ(minimal().prefillRows, 0u);
  auto rows = parseTargetDesc(std::string(kMinimal).insert(1, "\"prefill_rows\":256,"));
  ASSERT_TRUE(bool(rows)) << rows.error().message();
  auto rowsAgain = parseTargetDesc(targetDescToJson(*rows));
  ASSERT_TRUE(bool(rowsAgain));
  EXPECT_EQ(rowsAgain->prefillRows, 256u);
  for (const char *bad : {"1", "1025", "-2", "\"many\""}) {
    auto refused = parseTargetDesc(
        std::string(kMinimal).insert(1, std::string("\"prefill_rows\":") + bad + ","));
    ASSERT_FALSE(bool(refused)) << bad;
    EXPECT_EQ(refused.error().message(), "target: field 'prefill_rows' must be 0 (no @prefill) "
                                         "or an integer in [2, 1024]");
  }
}

TEST(CostModel, CacheReReadsAddTime) {
  TargetDesc d = minimal();
  auto model = createAnalyticalCostModel(d);
  StageCost s;
  s.bytesRead = 1000000; // 10 us at 100 GB/s
  s.workgroups = 1000;
  s.cacheBytes = 4000000; // default cache bandwidth 4 x 100 GB/s -> 10 us
  EXPECT_NEAR(model->stageMicros(s, 1000), 20.0, 1e-9);
  d.cacheBandwidthGBps = 1000.0; // -> 4 us
  EXPECT_NEAR(createAnalyticalCostModel(d)->stageMicros(s, 1000), 14.0, 1e-9);
  // Optional in the JSON, and kept by a round trip.
  std::string text = kMinimal;
  text.insert(text.size() - 1, R"(,"cache_bandwidth_gbps":1000)");
  auto parsed = parseTargetDesc(text);
  ASSERT_TRUE(bool(parsed)) << parsed.error().message();
  EXPECT_DOUBLE_EQ(parsed->cacheBandwidthGBps, 1000.0);
  EXPECT_DOUBLE_EQ(parseTargetDesc(targetDescToJson(*parsed))->cacheBandwidthGBps, 1000.0);
  EXPECT_DOUBLE_EQ(minimal().effectiveCacheBandwidthGBps(), 400.0);
}

TEST(CostModel, FusedDispatchIsSqueezedToItsNarrowestStage) {
  auto model = createAnalyticalCostModel(minimal());
  StageCost wide{1000000, 0, 0, 1000, false};
  StageCost reduce{4000, 0, 0, 1, false};
  DispatchEstimate fused = model->dispatchMicros({wide, reduce}, true);
  EXPECT_NEAR(fused.boundaryMicros, 5.0, 1e-12);
  EXPECT_NEAR(fused.kernelMicros, 100.0 + 0.4, 1e-9);
  DispatchEstimate alone = model->dispatchMicros({wide}, false);
  EXPECT_NEAR(alone.totalMicros(), 11.0, 1e-9);
}

// Brute force over all 2^(n-1) boundary sets.
double bruteForce(size_t n, const std::function<bool(size_t, size_t)> &legal,
                  const std::function<double(size_t, size_t)> &cost) {
  double best = 1e300;
  for (uint32_t mask = 0; mask < (1u << (n - 1)); ++mask) {
    double t = 0;
    size_t start = 0;
    bool ok = true;
    for (size_t k = 1; k <= n; ++k) {
      if (k == n || (mask >> (k - 1)) & 1u) {
        if (k - start > 1 && !legal(start, k))
          ok = false;
        t += cost(start, k);
        start = k;
      }
    }
    if (ok)
      best = std::min(best, t);
  }
  return best;
}

TEST(Partition, MatchesBruteForceOnRandomGraphs) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    size_t n = 1 + rng() % 9;
    std::vector<double> w(n);
    for (double &x : w)
      x = 1 + rng() % 20;
    std::vector<bool> breakAfter(n);
    for (size_t i = 0; i < n; ++i)
      breakAfter[i] = rng() % 4 == 0;
    double boundary = rng() % 10;
    auto legal = [&](size_t i, size_t j) {
      for (size_t k = i; k + 1 < j; ++k)
        if (breakAfter[k])
          return false;
      return true;
    };
    // Fusing squeezes: a fused group costs its sum plus a penalty per extra stage.
    auto cost = [&](size_t i, size_t j) {
      double t = boundary;
      for (size_t k = i; k < j; ++k)
        t += w[k] * (j - i > 1 ? 1.25 : 1.0);
      return t;
    };
    Partition p = choosePartition(n, legal, cost);
    EXPECT_NEAR(p.totalMicros, bruteForce(n, legal, cost), 1e-9);
    ASSERT_FALSE(p.starts.empty());
    EXPECT_EQ(p.starts.front(), 0u);
  }
}

TEST(Partition, BoundaryCostDecidesFusion) {
  // Three stages; fusing costs 3 us of squeeze per stage.
  auto run = [](double boundary) {
    auto legal = [](size_t, size_t) { return true; };
    auto cost = [&](size_t i, size_t j) {
      return boundary + 10.0 * double(j - i) + (j - i > 1 ? 3.0 * double(j - i) : 0.0);
    };
    return choosePartition(3, legal, cost).starts.size();
  };
  EXPECT_EQ(run(0.0), 3u); // free boundaries: never squeeze
  EXPECT_EQ(run(8.0), 1u); // an M4-like boundary: fuse all
}

} // namespace
