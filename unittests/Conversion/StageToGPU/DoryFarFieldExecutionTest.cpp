//===- DoryFarFieldExecutionTest.cpp - Far-field kernels vs the reference -===//
//
// window_attention, far_field_push, landmark_capture/seal, exit_test and the
// dispatch skip flag, run on the Vulkan device and compared with the CPU
// reference's own functions (kiln::ref attendNearFar, FarFieldAccumulator,
// sealLandmarks, logSoftmax), not with loops written here. Sizes are off the
// seed path: 3 query heads per KV head, hd = 24, qh·hd = 72, window 5,
// ring capacity 8, m = 3 landmarks.
//
//===----------------------------------------------------------------------===//
#include "HarnessSuite.h"

#include "kiln/Conversion/StageToGPU/StageToGPU.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"
#include "kiln/Reference/Activations.h"
#include "kiln/Reference/NystromFarField.h"
#include "kiln/Target/SPIRV/SPIRVEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace mlir;

namespace {

using Bytes = std::vector<uint8_t>;

template <typename T> Bytes bytesOf(const std::vector<T> &v) {
  Bytes b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <typename T> std::vector<T> valuesOf(const Bytes &b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

constexpr int64_t kHd = 24, kCap = 8, kWindow = 5, kM = 3, kGroup = 3;
constexpr float kScale = 4.898979f; // sqrt(24), the config default
constexpr float kEps = 1e-6f;

/// A one-dispatch module of stage.key_scores: `heads` query heads of kHd over
/// `ring` ([kvh, cap, kHd]), sink keys of type `sinks` (empty: none), scores
/// [heads, keys], Dory's window.
std::string keyScoresSource(int64_t heads, const std::string &ring, const std::string &sinks,
                            int64_t keys, int64_t window) {
  std::string q = "memref<" + std::to_string(heads * kHd) + "xf32>";
  std::string scores = "memref<" + std::to_string(heads) + "x" + std::to_string(keys) + "xf32>";
  return "func.func @f(%q: " + q + ", %kr: " + ring + (sinks.empty() ? "" : ", %sk: " + sinks) +
         ", %p: memref<4xi32>, %s: " + scores + ") {\n  stage.dispatch \"scores\" {\n"
         "    stage.key_scores q(%q : " + q + ") k_ring(%kr : " + ring + ")" +
         (sinks.empty() ? "" : " sink_k(%sk : " + sinks + ")") +
         " params(%p : memref<4xi32>) scores(%s : " + scores + ") {scale = 4.898979 : f32, window = " +
         std::to_string(window) + " : i64}\n  }\n  return\n}";
}

struct Rng {
  std::mt19937 gen{4321};
  std::vector<float> uniform(size_t n, float lo = -1.0f, float hi = 1.0f) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float &x : v)
      x = d(gen);
    return v;
  }
  /// A prepped key: unit(x), as dory_prep stores it.
  std::vector<float> unitKey() { return kiln::ref::unitNorm(uniform(kHd), kEps); }
};

/// One compiled kernel, run as many times as a test needs.
struct Kernel {
  kiln::KernelBinary binary;
  uint32_t groups = 0;
};

class DoryFarFieldExecution : public kiln::test::HarnessSuite<DoryFarFieldExecution> {
public:
  void SetUp() override {
    HarnessSuite::SetUp();
    if (IsSkipped())
      return;
    registry.insert<kiln::stage::StageDialect, func::FuncDialect>();
  }

  Kernel compile(const std::string &source) {
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "module does not parse";
    if (!module)
      return {};
    EXPECT_TRUE(succeeded(kiln::convertStagesToGPU(*module, {})));
    Kernel kernel;
    module->walk([&](gpu::LaunchFuncOp launch) {
      kernel.groups = static_cast<uint32_t>(
          launch.getGridSizeX().getDefiningOp<arith::ConstantIndexOp>().value());
    });
    auto binaries = kiln::emitSPIRV(*module, {});
    EXPECT_TRUE(succeeded(binaries));
    if (failed(binaries) || binaries->size() != 1)
      return {};
    kernel.binary = binaries->front();
    return kernel;
  }

  void run(const Kernel &kernel, std::vector<Bytes> &buffers) {
    ASSERT_GT(kernel.groups, 0u);
    ASSERT_EQ(kernel.binary.bindingCount, buffers.size());
    ASSERT_EQ(harness->run(kernel.binary.words, kernel.binary.name, buffers,
                           kernel.groups),
              "");
  }

  /// Runs stage.key_scores (the kernel a plan runs before window_attention)
  /// and returns its scores: `sinkK` empty when there are no sinks.
  Bytes scoresOf(const Kernel &scoring, const Bytes &q, const Bytes &kRing,
                 const Bytes &sinkK, const Bytes &params, size_t scoreCount) {
    std::vector<Bytes> b = {q, kRing};
    if (!sinkK.empty())
      b.push_back(sinkK);
    b.insert(b.end(), {params, bytesOf(std::vector<float>(scoreCount, 0.0f))});
    run(scoring, b);
    return b.back();
  }

  /// Max |gpu − ref| / max(1, |ref|), printed as the measured figure.
  static float expectNear(const std::vector<float> &gpu,
                          const std::vector<float> &ref, float tolerance,
                          const char *what) {
    EXPECT_EQ(gpu.size(), ref.size()) << what;
    float worst = 0.0f;
    for (size_t i = 0; i < std::min(gpu.size(), ref.size()); ++i) {
      float err = std::fabs(gpu[i] - ref[i]) / std::max(1.0f, std::fabs(ref[i]));
      worst = std::max(worst, err);
      EXPECT_LE(err, tolerance) << what << "[" << i << "]: gpu " << gpu[i]
                                << " reference " << ref[i];
    }
    std::printf("[ measure  ] %s: max rel error %.3g\n", what, worst);
    return worst;
  }

  DialectRegistry registry;
  Rng rng;
};

//===----------------------------------------------------------------------===//
// window_attention
//===----------------------------------------------------------------------===//

const char *kWindowAttention = R"(
func.func @f(%q: memref<144xf32>, %sc: memref<6xSCORESxf32>, %vr: memref<2x8x24xf32>,SINKARGS
             %g: memref<144xf32>, %sg: memref<144xf32>, %p: memref<4xi32>,
             %l: memref<2x3x24xf32>, %m: memref<2x3x3xf32>, %s: memref<2x3x26xf32>,
             %meta: memref<6xi32>, %o: memref<144xf32>) {
  stage.dispatch "window_attention" {
    stage.window_attention q(%q : memref<144xf32>) scores(%sc : memref<6xSCORESxf32>)
        v_ring(%vr : memref<2x8x24xf32>)SINKS gate(%g : memref<144xf32>)
        gate_scale(%sg : memref<144xf32>) params(%p : memref<4xi32>)
        far(%l, %m, %s, %meta : memref<2x3x24xf32>, memref<2x3x3xf32>,
            memref<2x3x26xf32>, memref<6xi32>)
        out(%o : memref<144xf32>) {window = 5 : i64, scale = 4.898979 : f32RECTIFY}
  }
  return
})";

/// The two kernels of a window attention: its key scores, then the rest.
struct WindowAttention {
  Kernel scoring, attend;
};

/// A KV head's far field as the reference holds it, and its GPU layout.
struct FarField {
  kiln::ref::NystromLandmarks landmarks;
  kiln::ref::FarFieldAccumulator accumulator;
};

/// Near-window plus far-field attention of 2 KV heads × 3 query heads at
/// position `pos`, against attendNearFar and the reference's sigmoid gate.
/// `tamper` may change a KV head's landmarks after the seal (e.g. negate M).
/// With `sinks` > 0 the kernel takes that many sink keys per KV head, first
/// in the near set (as DorySession hands them to attendNearFar).
float checkWindowAttention(DoryFarFieldExecution *test, Rng &rng,
                           const WindowAttention &kernel, int64_t pos, bool rectify,
                           int64_t pushes,
                           const std::function<void(FarField &)> &tamper,
                           const char *what, int64_t sinks = 0) {
  const int64_t kvh = 2, qh = kvh * kGroup;
  std::vector<float> kRing(kvh * kCap * kHd), vRing(kvh * kCap * kHd);
  for (int64_t kh = 0; kh < kvh; ++kh)
    for (int64_t slot = 0; slot < kCap; ++slot) {
      std::vector<float> key = rng.unitKey(), value = rng.uniform(kHd);
      std::copy(key.begin(), key.end(), kRing.begin() + (kh * kCap + slot) * kHd);
      std::copy(value.begin(), value.end(), vRing.begin() + (kh * kCap + slot) * kHd);
    }
  std::vector<float> scaleQk = rng.uniform(qh * kHd, 0.8f, 1.2f);
  std::vector<float> q(qh * kHd);
  for (int64_t h = 0; h < qh; ++h) {
    std::vector<float> unit = rng.unitKey();
    for (int64_t d = 0; d < kHd; ++d)
      q[h * kHd + d] = unit[d] * scaleQk[h * kHd + d];
  }
  std::vector<float> gate = rng.uniform(qh * kHd, -2, 2),
                     gateScale = rng.uniform(qh * kHd, 0.5f, 2.0f);

  std::vector<FarField> far;
  std::vector<float> landmarks(kvh * kM * kHd), inverse(kvh * kM * kM),
      sums(kvh * kM * (kHd + 2), 0.0f);
  std::vector<int32_t> meta(3 * kvh);
  for (int64_t kh = 0; kh < kvh; ++kh) {
    std::vector<float> keys;
    for (int64_t a = 0; a < kM; ++a) {
      std::vector<float> l = rng.unitKey();
      keys.insert(keys.end(), l.begin(), l.end());
    }
    FarField ff{kiln::ref::sealLandmarks(keys, kM, kHd, kScale),
                kiln::ref::FarFieldAccumulator(kM, kHd)};
    for (int64_t j = 0; j < pushes; ++j) {
      std::vector<float> k = rng.unitKey(), v = rng.uniform(kHd);
      ff.accumulator.push(ff.landmarks, k.data(), v.data(), kScale);
    }
    if (tamper)
      tamper(ff);
    std::copy(ff.landmarks.keys.begin(), ff.landmarks.keys.end(),
              landmarks.begin() + kh * kM * kHd);
    std::copy(ff.landmarks.inverse.begin(), ff.landmarks.inverse.end(),
              inverse.begin() + kh * kM * kM);
    for (int64_t b = 0; b < kM; ++b) {
      float *row = &sums[(kh * kM + b) * (kHd + 2)];
      row[0] = pushes ? ff.accumulator.logScale()[b] : 0.0f;
      row[1] = ff.accumulator.mass()[b];
      for (int64_t d = 0; d < kHd; ++d)
        row[2 + d] = ff.accumulator.valueSum()[b * kHd + d];
    }
    meta[3 * kh] = kM;
    meta[3 * kh + 1] = static_cast<int32_t>(pushes);
    meta[3 * kh + 2] = static_cast<int32_t>(pushes);
    far.push_back(std::move(ff));
  }

  // Sink keys are learned, not unit: spread them so some lead the scores.
  std::vector<float> sinkK = rng.uniform(kvh * sinks * kHd, -0.6f, 0.6f),
                     sinkV = rng.uniform(kvh * sinks * kHd);
  std::vector<int32_t> params = {0, static_cast<int32_t>(pos), 0, 0};
  Bytes scores = test->scoresOf(kernel.scoring, bytesOf(q), bytesOf(kRing),
                                sinks > 0 ? bytesOf(sinkK) : Bytes(), bytesOf(params),
                                size_t(qh * (sinks + kWindow)));
  std::vector<Bytes> buffers = {bytesOf(q), scores, bytesOf(vRing)};
  if (sinks > 0)
    buffers.push_back(bytesOf(sinkV));
  buffers.insert(buffers.end(),
                 {bytesOf(gate), bytesOf(gateScale), bytesOf(params),
                  bytesOf(landmarks), bytesOf(inverse), bytesOf(sums),
                  bytesOf(meta), bytesOf(std::vector<float>(qh * kHd, -9.0f))});
  test->run(kernel.attend, buffers);

  std::vector<float> expected(qh * kHd);
  const int64_t low = std::max<int64_t>(0, pos + 1 - kWindow);
  for (int64_t hq = 0; hq < qh; ++hq) {
    const int64_t kh = hq / kGroup;
    std::vector<const float *> keys, values;
    for (int64_t n = 0; n < sinks; ++n) {
      keys.push_back(&sinkK[(kh * sinks + n) * kHd]);
      values.push_back(&sinkV[(kh * sinks + n) * kHd]);
    }
    for (int64_t j = low; j <= pos; ++j) {
      keys.push_back(&kRing[(kh * kCap + j % kCap) * kHd]);
      values.push_back(&vRing[(kh * kCap + j % kCap) * kHd]);
    }
    std::vector<float> head = kiln::ref::attendNearFar(
        &q[hq * kHd], keys, values, kHd, kScale, &far[kh].landmarks,
        &far[kh].accumulator, rectify);
    for (int64_t d = 0; d < kHd; ++d) {
      const int64_t at = hq * kHd + d;
      expected[at] = head[d] * kiln::ref::sigmoid(gate[at] * gateScale[at]);
    }
  }
  return DoryFarFieldExecution::expectNear(valuesOf<float>(buffers.back()),
                                           expected, 2e-5f, what);
}

WindowAttention compileWindowAttention(DoryFarFieldExecution *test, bool rectify,
                                       int64_t sinks = 0) {
  std::string s = kWindowAttention;
  s.replace(s.find("RECTIFY"), 7, rectify ? ", rectify" : "");
  std::string type = "memref<2x" + std::to_string(sinks) + "x24xf32>";
  s.replace(s.find("SINKARGS"), 8, sinks ? " %sv: " + type + "," : "");
  s.replace(s.find("SINKS"), 5, sinks ? " sink_v(%sv : " + type + ")" : "");
  const std::string keys = std::to_string(sinks + kWindow);
  for (size_t at; (at = s.find("SCORES")) != std::string::npos;)
    s.replace(at, 6, keys);
  return {test->compile(keyScoresSource(2 * kGroup, "memref<2x8x24xf32>",
                                        sinks ? type : "", sinks + kWindow, kWindow)),
          test->compile(s)};
}

TEST_F(DoryFarFieldExecution, WindowAttentionNearPlusFarRectified) {
  WindowAttention kernel = compileWindowAttention(this, true);
  checkWindowAttention(this, rng, kernel, /*pos=*/11, true, /*pushes=*/9,
                       nullptr, "window_attention near+far, rectify");
}

TEST_F(DoryFarFieldExecution, WindowAttentionNearPlusFarSignedWeights) {
  WindowAttention kernel = compileWindowAttention(this, false);
  checkWindowAttention(this, rng, kernel, /*pos=*/13, false, /*pushes=*/4,
                       nullptr, "window_attention near+far, no rectify");
}

// Sinks (issue 15): 70 per KV head, more than the 32 key slices of a value
// workgroup, so each lane's sink walk strides too; with the far field, then
// before anything is folded.
TEST_F(DoryFarFieldExecution, WindowAttentionSinksFirstInTheNearSet) {
  WindowAttention kernel = compileWindowAttention(this, true, 70);
  checkWindowAttention(this, rng, kernel, /*pos=*/11, true, /*pushes=*/9,
                       nullptr, "window_attention sinks+near+far", 70);
  checkWindowAttention(this, rng, kernel, /*pos=*/1, true, /*pushes=*/0,
                       nullptr, "window_attention sinks+near (nothing folded)",
                       70);
}

TEST_F(DoryFarFieldExecution, WindowAttentionNothingFoldedIsPlainSoftmax) {
  WindowAttention kernel = compileWindowAttention(this, true);
  // Position 2: a short window (3 keys), and nothing folded yet.
  checkWindowAttention(this, rng, kernel, /*pos=*/2, true, /*pushes=*/0,
                       nullptr, "window_attention near only (nothing folded)");
}

TEST_F(DoryFarFieldExecution, WindowAttentionNegativeFarMassDropsTheFarPart) {
  WindowAttention kernel = compileWindowAttention(this, false);
  // M = −I makes every u_b negative, so the far mass is negative and the
  // reference (and the seed) drop the far part; the exponent c still counts.
  checkWindowAttention(this, rng, kernel, /*pos=*/9, false, /*pushes=*/6,
                       [](FarField &ff) {
                         for (int64_t a = 0; a < kM; ++a)
                           for (int64_t b = 0; b < kM; ++b)
                             ff.landmarks.inverse[a * kM + b] = a == b ? -1.0f : 0.0f;
                       },
                       "window_attention negative far mass");
}

TEST_F(DoryFarFieldExecution, WindowAttentionWithoutFarOperandsLongWindow) {
  // A window longer than a workgroup's block of keys: the scores spread
  // over several workgroups, and the weight walk strides.
  const int64_t qh = 3, cap = 100, window = 90, pos = 130;
  Kernel scoring = compile(keyScoresSource(qh, "memref<1x100x24xf32>", "", window, window));
  Kernel kernel = compile(R"(
func.func @f(%q: memref<72xf32>, %sc: memref<3x90xf32>, %vr: memref<1x100x24xf32>,
             %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>, %o: memref<72xf32>) {
  stage.dispatch "window_attention" {
    stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x90xf32>)
        v_ring(%vr : memref<1x100x24xf32>) gate(%g : memref<72xf32>)
        gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>)
        out(%o : memref<72xf32>) {window = 90 : i64, scale = 4.898979 : f32}
  }
  return
})");
  std::vector<float> kRing, vRing = rng.uniform(cap * kHd);
  for (int64_t s = 0; s < cap; ++s) {
    std::vector<float> k = rng.unitKey();
    kRing.insert(kRing.end(), k.begin(), k.end());
  }
  std::vector<float> q = rng.uniform(qh * kHd), gate = rng.uniform(qh * kHd),
                     gateScale = rng.uniform(qh * kHd);
  std::vector<int32_t> params = {0, pos, 0, 0};
  Bytes scores = scoresOf(scoring, bytesOf(q), bytesOf(kRing), Bytes(), bytesOf(params),
                          size_t(qh * window));
  std::vector<Bytes> buffers = {bytesOf(q), scores, bytesOf(vRing),
                                bytesOf(gate), bytesOf(gateScale), bytesOf(params),
                                bytesOf(std::vector<float>(qh * kHd))};
  run(kernel, buffers);
  std::vector<float> expected(qh * kHd);
  for (int64_t hq = 0; hq < qh; ++hq) {
    std::vector<const float *> keys, values;
    for (int64_t j = pos + 1 - window; j <= pos; ++j) {
      keys.push_back(&kRing[(j % cap) * kHd]);
      values.push_back(&vRing[(j % cap) * kHd]);
    }
    std::vector<float> head = kiln::ref::attendNearFar(
        &q[hq * kHd], keys, values, kHd, kScale, nullptr, nullptr, false);
    for (int64_t d = 0; d < kHd; ++d)
      expected[hq * kHd + d] =
          head[d] * kiln::ref::sigmoid(gate[hq * kHd + d] * gateScale[hq * kHd + d]);
  }
  expectNear(valuesOf<float>(buffers[6]), expected, 2e-5f,
             "window_attention window 90 over several score blocks");
}

//===----------------------------------------------------------------------===//
// far_field_push
//===----------------------------------------------------------------------===//

TEST_F(DoryFarFieldExecution, PushFoldsEachLeavingKeyOnceLikeTheAccumulator) {
  const int64_t kvh = 2;
  Kernel kernel = compile(R"(
func.func @f(%kr: memref<2x8x24xf32>, %vr: memref<2x8x24xf32>, %p: memref<4xi32>,
             %l: memref<2x3x24xf32>, %s: memref<2x3x26xf32>, %meta: memref<6xi32>) {
  stage.dispatch "far_field_push" {
    stage.far_field_push k_ring(%kr : memref<2x8x24xf32>) v_ring(%vr : memref<2x8x24xf32>)
        params(%p : memref<4xi32>) landmarks(%l : memref<2x3x24xf32>)
        far_sums(%s : memref<2x3x26xf32>) far_meta(%meta : memref<6xi32>)
        {window = 5 : i64, scale = 4.898979 : f32}
  }
  return
})");
  // Every position's key and value, as the ring would hold them.
  const int64_t last = 16;
  std::vector<std::vector<float>> keys, values;
  for (int64_t j = 0; j < (last + 1) * kvh; ++j) {
    keys.push_back(rng.unitKey());
    values.push_back(rng.uniform(kHd, -2, 2));
  }
  std::vector<kiln::ref::NystromLandmarks> landmarks;
  std::vector<kiln::ref::FarFieldAccumulator> accumulators;
  std::vector<float> landmarkBuffer;
  for (int64_t kh = 0; kh < kvh; ++kh) {
    std::vector<float> l;
    for (int64_t a = 0; a < kM; ++a) {
      std::vector<float> key = rng.unitKey();
      l.insert(l.end(), key.begin(), key.end());
    }
    landmarkBuffer.insert(landmarkBuffer.end(), l.begin(), l.end());
    landmarks.push_back(kiln::ref::sealLandmarks(l, kM, kHd, kScale));
    accumulators.emplace_back(kM, kHd);
  }
  std::vector<float> kRing(kvh * kCap * kHd), vRing(kvh * kCap * kHd);
  std::vector<Bytes> buffers = {
      bytesOf(kRing), bytesOf(vRing), bytesOf(std::vector<int32_t>(4, 0)),
      bytesOf(landmarkBuffer), bytesOf(std::vector<float>(kvh * kM * (kHd + 2), 0.0f)),
      bytesOf(std::vector<int32_t>{int32_t(kM), 0, 0, int32_t(kM), 0, 0})};
  float worst = 0.0f;
  for (int64_t pos = 0; pos <= last; ++pos) {
    // The step at pos: the ring still holds positions pos−7 … pos−1; the
    // push runs before dory_prep writes pos (here: pos's key is written too,
    // into a slot other than pos − window's, since cap > window).
    kRing = valuesOf<float>(buffers[0]);
    vRing = valuesOf<float>(buffers[1]);
    for (int64_t kh = 0; kh < kvh; ++kh) {
      const int64_t at = (kh * kCap + pos % kCap) * kHd;
      std::copy(keys[pos * kvh + kh].begin(), keys[pos * kvh + kh].end(), kRing.begin() + at);
      std::copy(values[pos * kvh + kh].begin(), values[pos * kvh + kh].end(), vRing.begin() + at);
    }
    buffers[0] = bytesOf(kRing);
    buffers[1] = bytesOf(vRing);
    buffers[2] = bytesOf(std::vector<int32_t>{0, int32_t(pos), 0, 0});
    // Twice per position: a later loop pass at the same position folds nothing.
    for (int repeat = 0; repeat < 2; ++repeat)
      run(kernel, buffers);
    if (pos >= kWindow) {
      const int64_t j = pos - kWindow;
      for (int64_t kh = 0; kh < kvh; ++kh)
        accumulators[kh].push(landmarks[kh], keys[j * kvh + kh].data(),
                              values[j * kvh + kh].data(), kScale);
    }
    std::vector<float> sums = valuesOf<float>(buffers[4]), expected(sums.size());
    std::vector<int32_t> meta = valuesOf<int32_t>(buffers[5]);
    for (int64_t kh = 0; kh < kvh; ++kh) {
      const kiln::ref::FarFieldAccumulator &acc = accumulators[kh];
      EXPECT_EQ(meta[3 * kh + 2], int32_t(acc.folded())) << "pos " << pos;
      EXPECT_EQ(meta[3 * kh + 1], int32_t(std::max<int64_t>(0, pos - kWindow + 1)));
      for (int64_t b = 0; b < kM; ++b) {
        float *row = &expected[(kh * kM + b) * (kHd + 2)];
        row[0] = acc.folded() ? acc.logScale()[b] : 0.0f;
        row[1] = acc.mass()[b];
        for (int64_t d = 0; d < kHd; ++d)
          row[2 + d] = acc.valueSum()[b * kHd + d];
      }
    }
    worst = std::max(worst, expectNear(sums, expected, 2e-5f, "far_field_push z, n, θ"));
  }
  std::printf("[ measure  ] far_field_push over 12 folds: max rel error %.3g\n", worst);
}

TEST_F(DoryFarFieldExecution, PushBeforeTheSealDropsTheKey) {
  Kernel kernel = compile(R"(
func.func @f(%kr: memref<1x8x24xf32>, %vr: memref<1x8x24xf32>, %p: memref<4xi32>,
             %l: memref<1x3x24xf32>, %s: memref<1x3x26xf32>, %meta: memref<3xi32>) {
  stage.dispatch "far_field_push" {
    stage.far_field_push k_ring(%kr : memref<1x8x24xf32>) v_ring(%vr : memref<1x8x24xf32>)
        params(%p : memref<4xi32>) landmarks(%l : memref<1x3x24xf32>)
        far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>)
        {window = 5 : i64, scale = 4.898979 : f32}
  }
  return
})");
  std::vector<Bytes> buffers = {
      bytesOf(rng.uniform(kCap * kHd)), bytesOf(rng.uniform(kCap * kHd)),
      bytesOf(std::vector<int32_t>{0, 7, 0, 0}), bytesOf(rng.uniform(kM * kHd)),
      bytesOf(std::vector<float>(kM * (kHd + 2), 0.0f)),
      bytesOf(std::vector<int32_t>{0, 0, 0})};
  run(kernel, buffers);
  // Key 2 left the window unsealed: the reference drops it (foldedUpTo moves).
  EXPECT_EQ(valuesOf<int32_t>(buffers[5]), (std::vector<int32_t>{0, 3, 0}));
  EXPECT_EQ(valuesOf<float>(buffers[4]), std::vector<float>(kM * (kHd + 2), 0.0f));
}

//===----------------------------------------------------------------------===//
// landmark_capture / landmark_seal
//===----------------------------------------------------------------------===//

const char *kCapture = R"(
func.func @f(%q: memref<144xf32>, %p: memref<4xi32>, %meta: memref<6xi32>, %l: memref<2x3x24xf32>) {
  stage.dispatch "landmark_capture" {
    stage.landmark_capture q(%q : memref<144xf32>) params(%p : memref<4xi32>)
        far_meta(%meta : memref<6xi32>) landmarks(%l : memref<2x3x24xf32>)
  }
  return
})";
const char *kSeal = R"(
func.func @f(%l: memref<2x3x24xf32>, %p: memref<4xi32>, %m: memref<2x3x3xf32>,
             %s: memref<2x3x26xf32>, %meta: memref<6xi32>) {
  stage.dispatch "landmark_seal" {
    stage.landmark_seal landmarks(%l : memref<2x3x24xf32>) params(%p : memref<4xi32>)
        inverse(%m : memref<2x3x3xf32>) far_sums(%s : memref<2x3x26xf32>)
        far_meta(%meta : memref<6xi32>) {scale = 4.898979 : f32}
  }
  return
})";

/// A first call of `rows` rows: capture at every row, then the seal; checks
/// the count, the landmarks (exact copies) and M against sealLandmarks.
void checkFirstCall(DoryFarFieldExecution *test, Rng &rng, const Kernel &capture,
                    const Kernel &seal, int64_t rows, int64_t expectedCount) {
  const int64_t kvh = 2, qh = kvh * kGroup;
  std::vector<std::vector<float>> queries;
  std::vector<Bytes> captureBuffers = {
      Bytes(), Bytes(), bytesOf(std::vector<int32_t>(3 * kvh, 0)),
      bytesOf(std::vector<float>(kvh * kM * kHd, 0.0f))};
  for (int64_t pos = 0; pos < rows; ++pos) {
    std::vector<float> q;
    for (int64_t h = 0; h < qh; ++h) {
      std::vector<float> unit = rng.unitKey();
      for (float &x : unit)
        x *= 1.1f; // a scale vector s_qk of 1.1
      q.insert(q.end(), unit.begin(), unit.end());
    }
    queries.push_back(q);
    captureBuffers[0] = bytesOf(q);
    captureBuffers[1] = bytesOf(std::vector<int32_t>{0, int32_t(pos), 0, 0});
    test->run(capture, captureBuffers);
  }
  std::vector<Bytes> sealBuffers = {
      captureBuffers[3], bytesOf(std::vector<int32_t>{0, int32_t(rows - 1), 0, 0}),
      bytesOf(std::vector<float>(kvh * kM * kM, -5.0f)),
      bytesOf(std::vector<float>(kvh * kM * (kHd + 2), 7.0f)), captureBuffers[2]};
  test->run(seal, sealBuffers);

  std::vector<float> landmarks = valuesOf<float>(sealBuffers[0]);
  std::vector<float> inverse = valuesOf<float>(sealBuffers[2]);
  std::vector<int32_t> meta = valuesOf<int32_t>(sealBuffers[4]);
  float worst = 0.0f;
  for (int64_t kh = 0; kh < kvh; ++kh) {
    EXPECT_EQ(meta[3 * kh], expectedCount) << rows << " rows";
    EXPECT_EQ(meta[3 * kh + 2], 0);
    // The reference's rule: the first query head of the group at 0, 8, 16, …
    std::vector<float> keys;
    for (int64_t a = 0; a < expectedCount; ++a) {
      const float *query = queries[a * 8].data() + kh * kGroup * kHd;
      keys.insert(keys.end(), query, query + kHd);
      for (int64_t d = 0; d < kHd; ++d)
        EXPECT_EQ(landmarks[(kh * kM + a) * kHd + d], query[d]);
    }
    kiln::ref::NystromLandmarks ref =
        kiln::ref::sealLandmarks(keys, expectedCount, kHd, kScale);
    std::vector<float> gpu, expected;
    for (int64_t a = 0; a < expectedCount; ++a)
      for (int64_t b = 0; b < expectedCount; ++b) {
        gpu.push_back(inverse[(kh * kM + a) * kM + b]);
        expected.push_back(ref.inverse[a * expectedCount + b]);
      }
    std::string what = "landmark_seal M (f32 Gauss-Jordan vs double), " +
                       std::to_string(rows) + " rows";
    worst = std::max(worst, DoryFarFieldExecution::expectNear(gpu, expected, 2e-3f,
                                                             what.c_str()));
    std::vector<float> sums = valuesOf<float>(sealBuffers[3]);
    for (int64_t i = kh * kM * (kHd + 2); i < (kh + 1) * kM * (kHd + 2); ++i)
      EXPECT_EQ(sums[i], 0.0f) << "the seal starts an empty far field";
  }
  // Sealed: another call captures and seals nothing.
  captureBuffers[0] = bytesOf(std::vector<float>(qh * kHd, 3.0f));
  captureBuffers[1] = bytesOf(std::vector<int32_t>{0, 0, 0, 0});
  captureBuffers[2] = sealBuffers[4];
  captureBuffers[3] = sealBuffers[0];
  test->run(capture, captureBuffers);
  EXPECT_EQ(captureBuffers[3], sealBuffers[0]) << "capture after the seal";
  std::vector<Bytes> again = sealBuffers;
  again[1] = bytesOf(std::vector<int32_t>{0, 40, 0, 0});
  test->run(seal, again);
  EXPECT_EQ(again[2], sealBuffers[2]) << "a second seal";
  EXPECT_EQ(again[4], sealBuffers[4]);
}

TEST_F(DoryFarFieldExecution, LandmarksFromEveryEighthPositionOfTheFirstCall) {
  Kernel capture = compile(kCapture), seal = compile(kSeal);
  checkFirstCall(this, rng, capture, seal, /*rows=*/20, /*count=*/3);
}

TEST_F(DoryFarFieldExecution, ShortPromptsSealFewerLandmarks) {
  Kernel capture = compile(kCapture), seal = compile(kSeal);
  checkFirstCall(this, rng, capture, seal, /*rows=*/1, /*count=*/1);
  checkFirstCall(this, rng, capture, seal, /*rows=*/8, /*count=*/1);
  checkFirstCall(this, rng, capture, seal, /*rows=*/9, /*count=*/2);
  checkFirstCall(this, rng, capture, seal, /*rows=*/40, /*count=*/3);
}

//===----------------------------------------------------------------------===//
// A decode sequence: capture + seal on the first call, then per step push,
// the prep's ring write (done by the host here) and the attention, with the
// ring capacity equal to the window (the order the push must keep).
//===----------------------------------------------------------------------===//

TEST_F(DoryFarFieldExecution, DecodeStepsFoldAndAttendLikeTheReference) {
  const int64_t window = 5, cap = 5, qh = kGroup, steps = 16;
  auto module = [&](const char *body) {
    return std::string(R"(
func.func @f(%q: memref<72xf32>, %kr: memref<1x5x24xf32>, %vr: memref<1x5x24xf32>,
             %g: memref<72xf32>, %sg: memref<72xf32>, %p: memref<4xi32>,
             %l: memref<1x3x24xf32>, %m: memref<1x3x3xf32>, %s: memref<1x3x26xf32>,
             %meta: memref<3xi32>, %o: memref<72xf32>, %sc: memref<3x5xf32>) {
  stage.dispatch "step" {
)") + body + R"(
  }
  return
})";
  };
  // The module declares the same 12 buffers for every kernel (unused ones are not bound:
  // each module names only what its stage uses, so the lists differ).
  Kernel capture = compile(module(
      "stage.landmark_capture q(%q : memref<72xf32>) params(%p : memref<4xi32>) "
      "far_meta(%meta : memref<3xi32>) landmarks(%l : memref<1x3x24xf32>)"));
  Kernel seal = compile(module(
      "stage.landmark_seal landmarks(%l : memref<1x3x24xf32>) params(%p : memref<4xi32>) "
      "inverse(%m : memref<1x3x3xf32>) far_sums(%s : memref<1x3x26xf32>) "
      "far_meta(%meta : memref<3xi32>) {scale = 4.898979 : f32}"));
  Kernel push = compile(module(
      "stage.far_field_push k_ring(%kr : memref<1x5x24xf32>) v_ring(%vr : memref<1x5x24xf32>) "
      "params(%p : memref<4xi32>) landmarks(%l : memref<1x3x24xf32>) "
      "far_sums(%s : memref<1x3x26xf32>) far_meta(%meta : memref<3xi32>) "
      "{window = 5 : i64, scale = 4.898979 : f32}"));
  Kernel scoring = compile(keyScoresSource(qh, "memref<1x5x24xf32>", "", window, window));
  Kernel attend = compile(module(
      "stage.window_attention q(%q : memref<72xf32>) scores(%sc : memref<3x5xf32>) "
      "v_ring(%vr : memref<1x5x24xf32>) gate(%g : memref<72xf32>) "
      "gate_scale(%sg : memref<72xf32>) params(%p : memref<4xi32>) "
      "far(%l, %m, %s, %meta : memref<1x3x24xf32>, memref<1x3x3xf32>, memref<1x3x26xf32>, memref<3xi32>) "
      "out(%o : memref<72xf32>) {window = 5 : i64, scale = 4.898979 : f32, rectify}"));

  // The device state, by name.
  Bytes kRing = bytesOf(std::vector<float>(cap * kHd, 0.0f)), vRing = kRing;
  Bytes landmarks = bytesOf(std::vector<float>(kM * kHd, 0.0f));
  Bytes inverse = bytesOf(std::vector<float>(kM * kM, 0.0f));
  Bytes sums = bytesOf(std::vector<float>(kM * (kHd + 2), 0.0f));
  Bytes meta = bytesOf(std::vector<int32_t>(3, 0));
  // The reference: whole history, landmarks, accumulator, foldedUpTo.
  std::vector<std::vector<float>> keys, values;
  kiln::ref::NystromLandmarks refLandmarks;
  kiln::ref::FarFieldAccumulator refFar;
  int64_t foldedUpTo = 0;
  float worst = 0.0f;
  for (int64_t pos = 0; pos < steps; ++pos) {
    std::vector<float> q;
    for (int64_t h = 0; h < qh; ++h) {
      std::vector<float> unit = rng.unitKey();
      q.insert(q.end(), unit.begin(), unit.end());
    }
    keys.push_back(rng.unitKey());
    values.push_back(rng.uniform(kHd, -2, 2));
    std::vector<float> gate = rng.uniform(qh * kHd), gateScale = rng.uniform(qh * kHd);
    Bytes params = bytesOf(std::vector<int32_t>{0, int32_t(pos), 0, 0});
    // 1. The push, before the prep overwrites slot pos mod cap.
    {
      std::vector<Bytes> b = {kRing, vRing, params, landmarks, sums, meta};
      run(push, b);
      sums = b[4];
      meta = b[5];
    }
    // 2. dory_prep's ring write.
    std::vector<float> kr = valuesOf<float>(kRing), vr = valuesOf<float>(vRing);
    std::copy(keys[pos].begin(), keys[pos].end(), kr.begin() + (pos % cap) * kHd);
    std::copy(values[pos].begin(), values[pos].end(), vr.begin() + (pos % cap) * kHd);
    kRing = bytesOf(kr);
    vRing = bytesOf(vr);
    // 3. Pass 0 of the first call (one row): capture and seal.
    {
      std::vector<Bytes> b = {bytesOf(q), params, meta, landmarks};
      run(capture, b);
      landmarks = b[3];
      std::vector<Bytes> c = {landmarks, params, inverse, sums, meta};
      run(seal, c);
      inverse = c[2];
      sums = c[3];
      meta = c[4];
    }
    // 4. The attention: its key scores, then the rest.
    Bytes scores = scoresOf(scoring, bytesOf(q), kRing, Bytes(), params, size_t(qh * window));
    std::vector<Bytes> b = {bytesOf(q), scores, vRing, bytesOf(gate), bytesOf(gateScale),
                            params, landmarks, inverse, sums, meta,
                            bytesOf(std::vector<float>(qh * kHd))};
    run(attend, b);

    // The reference (DorySession's rules): the first call seals one landmark
    // (position 0, a one-row call); key pos − window is folded at the end of
    // the call at pos and already seen by that call's row.
    if (pos == 0) {
      refLandmarks = kiln::ref::sealLandmarks(
          std::vector<float>(q.begin(), q.begin() + kHd), 1, kHd, kScale);
      refFar = kiln::ref::FarFieldAccumulator(1, kHd);
    }
    const int64_t low = std::max<int64_t>(0, pos + 1 - window);
    for (; foldedUpTo < low; ++foldedUpTo)
      refFar.push(refLandmarks, keys[foldedUpTo].data(), values[foldedUpTo].data(), kScale);
    std::vector<float> expected(qh * kHd);
    for (int64_t hq = 0; hq < qh; ++hq) {
      std::vector<const float *> nearKeys, nearValues;
      for (int64_t j = low; j <= pos; ++j) {
        nearKeys.push_back(keys[j].data());
        nearValues.push_back(values[j].data());
      }
      std::vector<float> head = kiln::ref::attendNearFar(
          &q[hq * kHd], nearKeys, nearValues, kHd, kScale, &refLandmarks, &refFar, true);
      for (int64_t d = 0; d < kHd; ++d)
        expected[hq * kHd + d] =
            head[d] * kiln::ref::sigmoid(gate[hq * kHd + d] * gateScale[hq * kHd + d]);
    }
    EXPECT_EQ(valuesOf<int32_t>(meta),
              (std::vector<int32_t>{1, int32_t(low), int32_t(refFar.folded())}))
        << "pos " << pos;
    worst = std::max(worst, expectNear(valuesOf<float>(b[10]), expected, 2e-5f,
                                       "decode step output"));
  }
  std::printf("[ measure  ] 16 decode steps (window = cap = 5, 1 landmark): max rel error %.3g\n",
              worst);
}

//===----------------------------------------------------------------------===//
// exit_test and skip_if
//===----------------------------------------------------------------------===//

const char *kExitTest = R"(
func.func @f(%lp: memref<2x301xf32>, %f: memref<2xi32>) {
  stage.dispatch "exit_test" {
    stage.exit_test input(%lp : memref<2x301xf32>) flag(%f : memref<2xi32>)
        {threshold = THRESHOLD : f64, flag_word = 1 : i64LOGITS}
  }
  return
})";

std::string exitTestSource(double threshold, bool logits) {
  std::string s = kExitTest;
  char text[64];
  std::snprintf(text, sizeof text, "%.17e", threshold);
  s.replace(s.find("THRESHOLD"), 9, text);
  s.replace(s.find("LOGITS"), 6, logits ? ", logits" : "");
  return s;
}

TEST_F(DoryFarFieldExecution, ExitTestRaisesTheFlagOnlyWhenEveryRowIsConfident) {
  const int64_t vocab = 301;
  // Row 0 peaked, row 1 less so: the max probabilities straddle thresholds.
  std::vector<float> logits = rng.uniform(2 * vocab, -2, 2);
  logits[17] = 9.0f;
  logits[vocab + 250] = 6.0f;
  std::vector<float> logProbs;
  double best[2];
  for (int r = 0; r < 2; ++r) {
    std::vector<float> row(logits.begin() + r * vocab, logits.begin() + (r + 1) * vocab);
    std::vector<float> lp = kiln::ref::logSoftmax(row);
    best[r] = *std::max_element(lp.begin(), lp.end());
    logProbs.insert(logProbs.end(), lp.begin(), lp.end());
  }
  double low = std::exp(std::min(best[0], best[1]));
  double high = std::exp(std::max(best[0], best[1]));
  // The reference's decision: exp(double(best)) >= threshold for every row.
  for (double threshold : {0.5 * low, low, std::nextafter(low, 1.0), high, 1.0}) {
    bool expected = std::exp(best[0]) >= threshold && std::exp(best[1]) >= threshold;
    for (bool useLogits : {false, true}) {
      if (useLogits && (threshold == low || threshold == std::nextafter(low, 1.0)))
        continue; // only the log-prob form is exact at the boundary
      Kernel kernel = compile(exitTestSource(threshold, useLogits));
      std::vector<Bytes> buffers = {bytesOf(useLogits ? logits : logProbs),
                                    bytesOf(std::vector<int32_t>{5, 0})};
      run(kernel, buffers);
      EXPECT_EQ(valuesOf<int32_t>(buffers[1]),
                (std::vector<int32_t>{5, expected ? 1 : 0}))
          << "threshold " << threshold << (useLogits ? " (logits)" : "");
    }
  }
}

TEST_F(DoryFarFieldExecution, SkipFlagLeavesEveryOutputUntouched) {
  const int64_t n = 200; // four workgroups of 64
  Kernel kernel = compile(R"(
func.func @f(%a: memref<200xf32>, %b: memref<200xf32>, %o: memref<200xf32>, %flag: memref<3xi32>) {
  stage.dispatch "skipped_add" skip_if(%flag : memref<3xi32>)[2] {
    stage.add ins(%a, %b : memref<200xf32>, memref<200xf32>) out(%o : memref<200xf32>)
  }
  return
})");
  std::vector<float> a = rng.uniform(n), b = rng.uniform(n), sum(n);
  for (int64_t i = 0; i < n; ++i)
    sum[i] = a[i] + b[i];
  for (int32_t flag : {0, 1, -7}) {
    std::vector<Bytes> buffers = {bytesOf(a), bytesOf(b),
                                  bytesOf(std::vector<float>(n, -3.0f)),
                                  bytesOf(std::vector<int32_t>{1, 1, flag})};
    run(kernel, buffers);
    EXPECT_EQ(valuesOf<float>(buffers[2]), flag == 0 ? sum : std::vector<float>(n, -3.0f))
        << "flag word " << flag;
  }
}

TEST_F(DoryFarFieldExecution, SkipFlagOnAReducingKernel) {
  Kernel kernel = compile(R"(
func.func @f(%h: memref<72xf32>, %in: memref<72xf32>, %st: memref<72xf32>, %flag: memref<1xi32>) {
  stage.dispatch "resume" skip_if(%flag : memref<1xi32>)[0] {
    stage.dory_mix hidden(%h : memref<72xf32>) entry(%in : memref<72xf32>)
        state(%st : memref<72xf32>) {mode = 4 : i64, eps = 1.0e-06 : f32}
  }
  return
})");
  std::vector<float> h = rng.uniform(72), in = rng.uniform(72), st = rng.uniform(72);
  for (int32_t flag : {1, 0}) {
    std::vector<Bytes> buffers = {bytesOf(h), bytesOf(in), bytesOf(st),
                                  bytesOf(std::vector<int32_t>{flag})};
    run(kernel, buffers);
    std::vector<float> expected = h;
    if (flag == 0) {
      std::vector<float> sum(72);
      for (int i = 0; i < 72; ++i)
        sum[i] = st[i] + in[i];
      expected = kiln::ref::unitNorm(sum, kEps);
    }
    expectNear(valuesOf<float>(buffers[0]), expected, flag ? 0.0f : 1e-5f,
               flag ? "dory_mix skipped" : "dory_mix run");
  }
}

} // namespace
