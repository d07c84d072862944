//===- KernelExecutionTest.cpp - Generated kernels vs CPU loops -----------===//
//
// Each test writes a one-dispatch stage module, lowers it with
// convert-stage-to-gpu and the SPIR-V target, runs it on the Vulkan device
// and compares every output with a CPU loop. Sizes are off the seed path
// (not multiples of 32, odd head counts).
//
//===----------------------------------------------------------------------===//
#include "HarnessSuite.h"

#include "kiln/Conversion/StageToGPU/StageToGPU.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"
#include "kiln/Target/MSL/MSLEmitter.h"
#include "kiln/Target/SPIRV/SPIRVEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
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

uint16_t toHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exponent = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = x & 0x7fffffu;
  if (exponent <= 0) {
    if (exponent < -10)
      return uint16_t(sign);
    mantissa |= 0x800000u;
    uint32_t shift = uint32_t(14 - exponent);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = (uint32_t(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
    ++half;
  return uint16_t(sign | half);
}

float fromHalf(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0)
    return (sign ? -1.0f : 1.0f) * std::ldexp(float(m), -24);
  uint32_t bits = sign | ((e + 112) << 23) | (m << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

struct Rng {
  std::mt19937 gen{1234};
  std::vector<float> uniform(size_t n, float lo = -1.0f, float hi = 1.0f) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float &x : v)
      x = d(gen);
    return v;
  }
};

/// Rounds a rows x cols matrix to halves (returned, for the CPU loop) and packs
/// it 8 halves per 16-byte group, rows padded with zeros.
std::vector<uint32_t> packF16(std::vector<float> &m, int64_t rows, int64_t cols) {
  int64_t groups = (cols + 7) / 8;
  std::vector<uint32_t> words(rows * groups * 4, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      uint16_t h = toHalf(m[r * cols + c]);
      m[r * cols + c] = fromHalf(h);
      words[r * groups * 4 + c / 2] |= uint32_t(h) << (16 * (c % 2));
    }
  return words;
}

std::vector<uint32_t> packQ8(const std::vector<int8_t> &q, int64_t rows, int64_t cols) {
  int64_t groups = (cols + 15) / 16;
  std::vector<uint32_t> words(rows * groups * 4, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      words[r * groups * 4 + c / 4] |= uint32_t(uint8_t(q[r * cols + c])) << (8 * (c % 4));
  return words;
}

class KernelExecution : public kiln::test::HarnessSuite<KernelExecution> {
protected:
  void SetUp() override {
    HarnessSuite::SetUp();
    if (IsSkipped())
      return;
    registry.insert<kiln::stage::StageDialect, func::FuncDialect,
                    spirv::SPIRVDialect>();
  }

  /// blockKeys > 0: one split_keys kernel of blocks of that many keys
  /// (returns, in `straddling`, how many blocks the combine weighs again);
  /// keySpread widens the keys' range, so a head's scores spread past the
  /// e^-16 floor.
  void checkAttention(int64_t qh, int64_t kvh, int64_t hd, int64_t W, int64_t ns,
                      int64_t pos, const std::vector<int64_t> &groupWindows,
                      int64_t blockKeys = 0, float keySpread = 3.0f,
                      int64_t *straddling = nullptr);

  /// Lowers the module's single dispatch and runs it over `buffers` (in the
  /// order of first use by the stages).
  void run(const std::string &source, std::vector<Bytes> &buffers,
           bool subgroupReduce = false) {
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
    ASSERT_TRUE(module) << "module does not parse";
    kiln::StageToGPUOptions options;
    options.subgroupReduce = subgroupReduce;
    ASSERT_TRUE(succeeded(kiln::convertStagesToGPU(*module, options)));
    int64_t groups = -1;
    module->walk([&](gpu::LaunchFuncOp launch) {
      auto c = launch.getGridSizeX().getDefiningOp<arith::ConstantIndexOp>();
      groups = c.value();
    });
    ASSERT_GT(groups, 0);
    auto binaries = kiln::emitSPIRV(*module, {});
    ASSERT_TRUE(succeeded(binaries));
    ASSERT_EQ(binaries->size(), 1u);
    const kiln::KernelBinary &binary = binaries->front();
    ASSERT_EQ(binary.bindingCount, buffers.size());
    // Every kernel must also go through SPIRV-Cross to MSL.
    kiln::MSLResult msl = kiln::emitMSL(binary.words);
    EXPECT_TRUE(msl.ok) << msl.error;
    EXPECT_EQ(msl.kernel.threadgroupSize[0], uint32_t(binary.workgroupSize[0]));
    std::string error = harness->run(binary.words, binary.name, buffers,
                                     static_cast<uint32_t>(groups));
    ASSERT_EQ(error, "");
  }

  static void expectNear(const std::vector<float> &gpu, const std::vector<float> &cpu,
                         float tolerance, const char *what) {
    ASSERT_EQ(gpu.size(), cpu.size()) << what;
    float worst = 0.0f;
    for (size_t i = 0; i < cpu.size(); ++i) {
      float err = std::fabs(gpu[i] - cpu[i]) / std::max(1.0f, std::fabs(cpu[i]));
      worst = std::max(worst, err);
      ASSERT_LE(err, tolerance) << what << "[" << i << "]: gpu " << gpu[i]
                                << " cpu " << cpu[i];
    }
    std::printf("[ measure  ] %s: max rel error %.3g\n", what, worst);
  }

  DialectRegistry registry;
  Rng rng;
};

TEST_F(KernelExecution, MatVecF16Rows72Cols200) {
  const int64_t R = 72, C = 200;
  std::vector<float> w = rng.uniform(R * C), x = rng.uniform(C);
  std::vector<uint32_t> packed = packF16(w, R, C);
  std::vector<Bytes> buffers = {bytesOf(packed), bytesOf(x),
                                bytesOf(std::vector<float>(R, -7.0f))};
  run(R"(
func.func @f(%w: memref<72x25xvector<4xi32>>, %x: memref<200xf32>, %y: memref<72xf32>) {
  stage.dispatch "mv" {
    stage.matvec weight(%w : memref<72x25xvector<4xi32>>) input(%x : memref<200xf32>)
        out(%y : memref<72xf32>) {format = #stage.format<f16>}
  }
  return
})", buffers);
  std::vector<float> expected(R);
  for (int64_t r = 0; r < R; ++r) {
    double s = 0;
    for (int64_t c = 0; c < C; ++c)
      s += double(w[r * C + c]) * x[c];
    expected[r] = float(s);
  }
  expectNear(valuesOf<float>(buffers[2]), expected, 1e-4f, "matvec f16 72x200");
}

TEST_F(KernelExecution, MatVecQ8SplitKSiluMul) {
  const int64_t R = 72, C = 200, K = 3, G = 13, perChunk = 5;
  std::vector<int8_t> q(R * C);
  std::mt19937 gen(7);
  for (auto &v : q)
    v = int8_t(int(gen() % 255) - 127);
  std::vector<float> scale = rng.uniform(R, 0.001f, 0.01f);
  std::vector<float> g = rng.uniform(C, -3, 3), u = rng.uniform(C);
  std::vector<Bytes> buffers = {bytesOf(packQ8(q, R, C)), bytesOf(scale),
                                bytesOf(g), bytesOf(u),
                                bytesOf(std::vector<float>(K * R, 0.0f))};
  run(R"(
func.func @f(%w: memref<72x13xvector<4xi32>>, %s: memref<72xf32>, %g: memref<200xf32>,
             %u: memref<200xf32>, %y: memref<3x72xf32>) {
  stage.dispatch "mvq" {
    stage.matvec weight(%w : memref<72x13xvector<4xi32>>) row_scale(%s : memref<72xf32>)
        input(%g : memref<200xf32>) up(%u : memref<200xf32>) out(%y : memref<3x72xf32>)
        {format = #stage.format<q8_2f>, activation = #stage.activation<silu_mul>, split_k = 3 : i64}
  }
  return
})", buffers);
  std::vector<float> expected(K * R);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t r = 0; r < R; ++r) {
      double s = 0;
      for (int64_t c = k * perChunk * 16; c < std::min<int64_t>((k + 1) * perChunk, G) * 16 && c < C; ++c)
        s += double(q[r * C + c]) * (g[c] / (1 + std::exp(-g[c]))) * u[c];
      expected[k * R + r] = float(s) * scale[r];
    }
  expectNear(valuesOf<float>(buffers[4]), expected, 1e-4f, "matvec q8_2f split-K planes");
}

// Gate and up of a q8_2f FFN with their own row and column scales and one
// zero-centred norm: one pass over the columns for both (each its own
// activations), then silu(gate)·up in the row's thread. 72 rows and 200
// columns leave ragged row items and a ragged last group.
TEST_F(KernelExecution, RowEpilogueQ8OwnColumnScalesNormed) {
  const int64_t R = 72, C = 200;
  std::mt19937 gen(11);
  std::vector<int8_t> qg(R * C), qu(R * C);
  for (auto *q : {&qg, &qu})
    for (auto &v : *q)
      v = int8_t(int(gen() % 255) - 127);
  std::vector<float> sg = rng.uniform(R, 0.001f, 0.01f), su = rng.uniform(R, 0.001f, 0.01f);
  std::vector<float> cg = rng.uniform(C, 0.5f, 2.0f), cu = rng.uniform(C, 0.5f, 2.0f);
  std::vector<float> x = rng.uniform(C, -2, 2), nw = rng.uniform(C, -0.2f, 0.2f);
  std::vector<Bytes> buffers = {bytesOf(packQ8(qg, R, C)), bytesOf(sg), bytesOf(cg),
                                bytesOf(x), bytesOf(nw), bytesOf(std::vector<float>(R, 0.0f)),
                                bytesOf(packQ8(qu, R, C)), bytesOf(su), bytesOf(cu),
                                bytesOf(std::vector<float>(R, 0.0f)),
                                bytesOf(std::vector<float>(R, 0.0f))};
  run(R"(
func.func @f(%wg: memref<72x13xvector<4xi32>>, %sg: memref<72xf32>, %cg: memref<200xf32>,
             %x: memref<200xf32>, %n: memref<200xf32>, %g: memref<72xf32>,
             %wu: memref<72x13xvector<4xi32>>, %su: memref<72xf32>, %cu: memref<200xf32>,
             %u: memref<72xf32>, %z: memref<72xf32>) {
  stage.dispatch "gate__up__act" attributes {fusion = "row_epilogue"} {
    stage.matvec weight(%wg : memref<72x13xvector<4xi32>>) row_scale(%sg : memref<72xf32>)
        col_scale(%cg : memref<200xf32>) input(%x : memref<200xf32>) norm(%n : memref<200xf32>)
        out(%g : memref<72xf32>)
        {format = #stage.format<q8_2f>, norm_eps = 1.0e-06 : f32, norm_zero_centered}
    stage.matvec weight(%wu : memref<72x13xvector<4xi32>>) row_scale(%su : memref<72xf32>)
        col_scale(%cu : memref<200xf32>) input(%x : memref<200xf32>) norm(%n : memref<200xf32>)
        out(%u : memref<72xf32>)
        {format = #stage.format<q8_2f>, norm_eps = 1.0e-06 : f32, norm_zero_centered}
    stage.silu_mul ins(%g, %u : memref<72xf32>, memref<72xf32>) out(%z : memref<72xf32>)
  }
  return
})", buffers);
  double ss = 0;
  for (float v : x)
    ss += double(v) * v;
  float inv = 1.0f / std::sqrt(float(ss / C) + 1e-6f);
  std::vector<float> gate(R), up(R), z(R);
  for (int64_t r = 0; r < R; ++r) {
    double a = 0, b = 0;
    for (int64_t c = 0; c < C; ++c) {
      double xn = double(x[c]) * inv * (1.0 + nw[c]);
      a += double(qg[r * C + c]) * cg[c] * xn;
      b += double(qu[r * C + c]) * cu[c] * xn;
    }
    gate[r] = float(a) * sg[r];
    up[r] = float(b) * su[r];
    z[r] = gate[r] / (1.0f + std::exp(-gate[r])) * up[r];
  }
  expectNear(valuesOf<float>(buffers[5]), gate, 1e-4f, "row epilogue q8_2f gate");
  expectNear(valuesOf<float>(buffers[9]), up, 1e-4f, "row epilogue q8_2f up");
  expectNear(valuesOf<float>(buffers[10]), z, 1e-4f, "row epilogue silu(gate)*up");
}

void rmsnormReference(std::vector<float> &h, const std::vector<float> &parts, int64_t K,
                      const std::vector<float> &w, const std::vector<float> &fold,
                      std::vector<float> &out) {
  int64_t H = h.size();
  double ss = 0;
  for (int64_t i = 0; i < H; ++i) {
    for (int64_t k = 0; k < K; ++k)
      h[i] += parts[k * H + i];
    ss += double(h[i]) * h[i];
  }
  float inv = 1.0f / std::sqrt(float(ss / H) + 1e-6f);
  out.resize(H);
  for (int64_t i = 0; i < H; ++i)
    out[i] = h[i] * inv * (1.0f + w[i]) * fold[i];
}

const char *kRMSNormModule = R"(
func.func @f(%h: memref<200xf32>, %p: memref<3x200xf32>, %w: memref<200xf32>,
             %o: memref<200xf32>, %f: memref<200xf32>) {
  stage.dispatch "norm" {
    stage.rmsnorm residual(%h : memref<200xf32>) partials(%p : memref<3x200xf32>)
        weight(%w : memref<200xf32>) outs(%o : memref<200xf32>) folds(%f : memref<200xf32>)
        {eps = 1.0e-06 : f32, zero_centered}
  }
  return
})";

void checkRMSNorm(KernelExecution *test, Rng &rng, bool subgroup);

TEST_F(KernelExecution, RMSNormPartialsZeroCentredFold) {
  const int64_t H = 200, K = 3;
  std::vector<float> h = rng.uniform(H), p = rng.uniform(K * H), w = rng.uniform(H, -0.2f, 0.2f),
                     f = rng.uniform(H, 0.5f, 2.0f);
  std::vector<Bytes> buffers = {bytesOf(h), bytesOf(p), bytesOf(w),
                                bytesOf(std::vector<float>(H)), bytesOf(f)};
  run(kRMSNormModule, buffers);
  std::vector<float> out;
  rmsnormReference(h, p, K, w, f, out);
  expectNear(valuesOf<float>(buffers[0]), h, 1e-5f, "rmsnorm residual");
  expectNear(valuesOf<float>(buffers[3]), out, 1e-4f, "rmsnorm output");
}

// 256 threads: 1,000 values are held four a thread (the last partly past
// the row); 4,200 are more than kMaxHeldPerThread a thread and take the
// strided loop.
TEST_F(KernelExecution, RMSNormHeldAndStridedRows) {
  for (int64_t H : {1000, 4200}) {
    const int64_t K = 3;
    std::string source;
    for (const char *c = kRMSNormModule; *c; ++c) // every "200" is the row length
      if (std::strncmp(c, "200", 3) == 0) {
        source += std::to_string(H);
        c += 2;
      } else {
        source += *c;
      }
    std::vector<float> h = rng.uniform(H), p = rng.uniform(K * H),
                       w = rng.uniform(H, -0.2f, 0.2f), f = rng.uniform(H, 0.5f, 2.0f);
    std::vector<Bytes> buffers = {bytesOf(h), bytesOf(p), bytesOf(w),
                                  bytesOf(std::vector<float>(H)), bytesOf(f)};
    run(source, buffers);
    std::vector<float> out;
    rmsnormReference(h, p, K, w, f, out);
    std::string what = "rmsnorm " + std::to_string(H);
    expectNear(valuesOf<float>(buffers[0]), h, 1e-5f, (what + " residual").c_str());
    expectNear(valuesOf<float>(buffers[3]), out, 1e-4f, (what + " output").c_str());
  }
}

TEST_F(KernelExecution, RMSNormSubgroupReduce) {
  const int64_t H = 200, K = 3;
  std::vector<float> h = rng.uniform(H), p = rng.uniform(K * H), w = rng.uniform(H, -0.2f, 0.2f),
                     f = rng.uniform(H, 0.5f, 2.0f);
  std::vector<Bytes> buffers = {bytesOf(h), bytesOf(p), bytesOf(w),
                                bytesOf(std::vector<float>(H)), bytesOf(f)};
  std::string source = std::string("module attributes {spirv.target_env = #spirv.target_env<"
      "#spirv.vce<v1.3, [Shader, GroupNonUniform, GroupNonUniformArithmetic], "
      "[SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>} {\n") +
      kRMSNormModule + "\n}";
  run(source, buffers, /*subgroupReduce=*/true);
  std::vector<float> out;
  rmsnormReference(h, p, K, w, f, out);
  expectNear(valuesOf<float>(buffers[3]), out, 1e-4f, "rmsnorm output (subgroup reduce)");
}

TEST_F(KernelExecution, ConvRingFourTaps) {
  const int64_t C = 52, KK = 4;
  std::vector<float> x = rng.uniform(C), taps = rng.uniform(C * KK), ring = rng.uniform((KK - 1) * C);
  std::vector<Bytes> buffers = {bytesOf(x), bytesOf(taps), bytesOf(ring),
                                bytesOf(std::vector<float>(C))};
  run(R"(
func.func @f(%x: memref<52xf32>, %t: memref<52x4xf32>, %r: memref<3x52xf32>, %o: memref<52xf32>) {
  stage.dispatch "conv" {
    stage.conv_ring input(%x : memref<52xf32>) taps(%t : memref<52x4xf32>)
        ring(%r : memref<3x52xf32>) out(%o : memref<52xf32>)
  }
  return
})", buffers);
  std::vector<float> out(C), newRing(ring);
  for (int64_t c = 0; c < C; ++c) {
    float y = x[c] * taps[c * KK + KK - 1];
    for (int64_t j = 0; j < KK - 1; ++j)
      y += ring[j * C + c] * taps[c * KK + j];
    out[c] = y / (1 + std::exp(-y));
    for (int64_t j = 0; j + 2 < KK; ++j)
      newRing[j * C + c] = ring[(j + 1) * C + c];
    newRing[(KK - 2) * C + c] = x[c];
  }
  expectNear(valuesOf<float>(buffers[3]), out, 1e-5f, "conv_ring output");
  expectNear(valuesOf<float>(buffers[2]), newRing, 0.0f, "conv_ring ring");
}

TEST_F(KernelExecution, GdnStepThreeHeads) {
  const int64_t nv = 3, nk = 1, dk = 12, dv = 20, cdim = 2 * nk * dk + nv * dv;
  std::vector<float> qkv = rng.uniform(cdim), z = rng.uniform(nv * dv), a = rng.uniform(nv),
                     b = rng.uniform(nv), alog = rng.uniform(nv), dt = rng.uniform(nv),
                     norm = rng.uniform(dv, 0.5f, 1.5f), state = rng.uniform(nv * dk * dv);
  std::vector<Bytes> buffers = {bytesOf(qkv), bytesOf(z), bytesOf(a), bytesOf(b),
                                bytesOf(alog), bytesOf(dt), bytesOf(norm), bytesOf(state),
                                bytesOf(std::vector<float>(nv * dv))};
  run(R"(
func.func @f(%cq: memref<84xf32>, %z: memref<60xf32>, %a: memref<3xf32>, %b: memref<3xf32>,
             %al: memref<3xf32>, %dt: memref<3xf32>, %n: memref<20xf32>,
             %s: memref<3x12x20xf32>, %o: memref<60xf32>) {
  stage.dispatch "gdn" {
    stage.gdn_step qkv(%cq : memref<84xf32>) z(%z : memref<60xf32>) a(%a : memref<3xf32>)
        b(%b : memref<3xf32>) a_log(%al : memref<3xf32>) dt_bias(%dt : memref<3xf32>)
        norm(%n : memref<20xf32>) state(%s : memref<3x12x20xf32>) out(%o : memref<60xf32>)
        {num_k_heads = 1 : i64, eps = 1.0e-06 : f32}
  }
  return
})", buffers);
  std::vector<float> out(nv * dv), S(state);
  for (int64_t h = 0; h < nv; ++h) {
    const float *q = &qkv[0], *k = &qkv[nk * dk], *v = &qkv[2 * nk * dk + h * dv];
    double qq = 0, kk = 0;
    for (int64_t i = 0; i < dk; ++i) {
      qq += q[i] * q[i];
      kk += k[i] * k[i];
    }
    float invq = 1.0f / (std::sqrt(float(qq) + 1e-6f) * std::sqrt(float(dk)));
    float invk = 1.0f / std::sqrt(float(kk) + 1e-6f);
    float x = a[h] + dt[h];
    float sp = x > 20 ? x : std::log1p(std::exp(x));
    float g = std::exp(-std::exp(alog[h]) * sp), beta = 1 / (1 + std::exp(-b[h]));
    std::vector<float> o(dv);
    for (int64_t j = 0; j < dv; ++j) {
      float kv = 0;
      for (int64_t i = 0; i < dk; ++i)
        kv += S[(h * dk + i) * dv + j] * k[i] * invk;
      float delta = beta * (v[j] - g * kv);
      for (int64_t i = 0; i < dk; ++i) {
        float &s = S[(h * dk + i) * dv + j];
        s = g * s + k[i] * invk * delta;
        o[j] += s * q[i] * invq;
      }
    }
    double ss = 0;
    for (float e : o)
      ss += e * e;
    float inv = 1.0f / std::sqrt(float(ss / dv) + 1e-6f);
    for (int64_t j = 0; j < dv; ++j) {
      float zz = z[h * dv + j];
      out[h * dv + j] = o[j] * inv * norm[j] * zz / (1 + std::exp(-zz));
    }
  }
  expectNear(valuesOf<float>(buffers[7]), S, 1e-5f, "gdn state");
  expectNear(valuesOf<float>(buffers[8]), out, 1e-4f, "gdn output");
}

/// stage.key_scores, then stage.attention, on random rings against a direct
/// evaluation: `groupWindows` (one per KV head) bound the ring keys, the
/// e^-16 floor drops keys.
void KernelExecution::checkAttention(int64_t qh, int64_t kvh, int64_t hd, int64_t W,
                                     int64_t ns, int64_t pos,
                                     const std::vector<int64_t> &groupWindows,
                                     int64_t blockKeys, float keySpread,
                                     int64_t *straddling) {
  std::vector<float> qr = rng.uniform(qh * hd, -3, 3), qp = rng.uniform(qh * hd, -3, 3),
                     kr = rng.uniform(kvh * W * hd, -keySpread, keySpread),
                     vr = rng.uniform(kvh * W * hd),
                     sk = rng.uniform(kvh * ns * hd, -3, 3), sv = rng.uniform(kvh * ns * hd);
  std::vector<int32_t> params = {3, int32_t(pos), 0, 0};
  // A dropped key's weight is below e^-16 of the largest: to see whether a
  // kernel drops it, its value is made loud (1e6) where every query head of
  // its KV head drops it.
  if (keySpread > 3.0f) {
    std::vector<std::vector<bool>> heard(kvh, std::vector<bool>(ns + W, false));
    for (int64_t h = 0; h < qh; ++h) {
      int64_t g = h / (qh / kvh);
      std::vector<std::pair<float, int64_t>> keyScores; // (score, sink u or ns + slot)
      for (int64_t u = 0; u < ns; ++u) {
        float s = 0;
        for (int64_t d = 0; d < hd; ++d)
          s += qp[h * hd + d] * sk[(g * ns + u) * hd + d];
        keyScores.push_back({s * float(1.0 / std::sqrt(double(hd))), u});
      }
      for (int64_t back = 0; back < std::min<int64_t>(pos + 1, groupWindows[g]); ++back) {
        int64_t slot = ((pos - back) % W + W) % W;
        float s = 0;
        for (int64_t d = 0; d < hd; ++d)
          s += qr[h * hd + d] * kr[(g * W + slot) * hd + d];
        keyScores.push_back({s * float(1.0 / std::sqrt(double(hd))), ns + slot});
      }
      float mx = -INFINITY;
      for (auto [s, key] : keyScores)
        mx = std::max(mx, s);
      for (auto [s, key] : keyScores)
        if (s - mx >= -16)
          heard[g][key] = true;
    }
    for (int64_t g = 0; g < kvh; ++g)
      for (int64_t key = 0; key < ns + W; ++key) {
        if (heard[g][key])
          continue;
        float *row = key < ns ? &sv[(g * ns + key) * hd] : &vr[(g * W + key - ns) * hd];
        std::fill(row, row + hd, 1e6f);
      }
  }
  auto n = [](int64_t v) { return std::to_string(v); };
  std::string q = "memref<" + n(qh * hd) + "xf32>";
  std::string ring = "memref<" + n(kvh) + "x" + n(W) + "x" + n(hd) + "xf32>";
  std::string sink = "memref<" + n(kvh) + "x" + n(ns) + "x" + n(hd) + "xf32>";
  std::string scores = "memref<" + n(qh) + "x" + n(ns + W) + "xf32>";
  std::string windows;
  for (int64_t w : groupWindows)
    windows += (windows.empty() ? "" : ", ") + n(w);
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.9g", 1.0 / std::sqrt(double(hd)));
  const bool sinks = ns > 0;
  std::string scoreStage =
      "    stage.key_scores q(%qr : " + q + ")" + (sinks ? " sink_q(%qp : " + q + ")" : "") +
      "\n        k_ring(%kr : " + ring + ")" + (sinks ? " sink_k(%sk : " + sink + ")" : "") +
      "\n        params(%p : memref<4xi32>) scores(%s : " + scores + ")\n"
      "        {group_windows = array<i64: " + windows + ">, scale = " + scale + " : f32}\n";
  std::string attendStage =
      "    stage.attention scores(%s : " + scores + ") v_ring(%vr : " + ring + ")" +
      (sinks ? " sink_v(%sv : " + sink + ")" : "") +
      "\n        params(%p : memref<4xi32>) out(%o : " + q + ") {group_windows = array<i64: " +
      windows + ">}\n";
  // The key_scores stage's buffers and arguments, in the order it first uses
  // them (without sinks, no sink operands at all).
  std::vector<Bytes> scoring = {bytesOf(qr)};
  if (sinks)
    scoring.push_back(bytesOf(qp));
  scoring.push_back(bytesOf(kr));
  if (sinks)
    scoring.push_back(bytesOf(sk));
  scoring.push_back(bytesOf(params));
  scoring.push_back(bytesOf(std::vector<float>(qh * (ns + W))));
  std::string scoringArgs = "%qr: " + q + ", %qp: " + q + ", %kr: " + ring +
                            (sinks ? ", %sk: " + sink : "") + ", %p: memref<4xi32>, %s: " + scores;
  std::vector<Bytes> buffers;
  if (blockKeys > 0) {
    // One kernel: the buffers in the order the three stages first use them.
    int64_t blocks = (ns + W + blockKeys - 1) / blockKeys;
    std::string partials = "memref<" + n(qh) + "x" + n(blocks) + "x" + n(hd + 3) + "xf32>";
    std::string counters = "memref<" + n(qh) + "xi32>";
    buffers = scoring;
    buffers.push_back(bytesOf(std::vector<float>(qh * blocks * (hd + 3))));
    buffers.push_back(bytesOf(std::vector<int32_t>(qh)));
    buffers.push_back(bytesOf(vr));
    if (sinks)
      buffers.push_back(bytesOf(sv));
    buffers.push_back(bytesOf(std::vector<float>(qh * hd)));
    run("func.func @f(" + scoringArgs + ", %b: " + partials + ", %c: " + counters +
            ", %vr: " + ring + (sinks ? ", %sv: " + sink : "") + ", %o: " + q + ") {\n"
            "  stage.dispatch \"attend\" attributes {fusion = \"split_keys\"} {\n" +
            scoreStage + "    stage.key_blocks partials(%b : " + partials + ") counters(%c : " +
            counters + ") {block_keys = " + n(blockKeys) + " : i64}\n" + attendStage +
            "  }\n  return\n}",
        buffers);
    // The counters are back at zero for the next dispatch.
    for (int32_t word : valuesOf<int32_t>(buffers[scoring.size() + 1]))
      EXPECT_EQ(word, 0);
  } else {
    // Two kernels, as a plan runs them: the scores, then the weights and
    // values.
    run("func.func @f(" + scoringArgs + ") {\n"
            "  stage.dispatch \"scores\" {\n" + scoreStage + "  }\n  return\n}",
        scoring);
    buffers = {scoring.back(), bytesOf(vr)};
    if (sinks)
      buffers.push_back(bytesOf(sv));
    buffers.push_back(bytesOf(params));
    buffers.push_back(bytesOf(std::vector<float>(qh * hd)));
    run("func.func @f(%s: " + scores + ", %vr: " + ring + (sinks ? ", %sv: " + sink : "") +
            ", %p: memref<4xi32>, %o: " + q + ") {\n"
            "  stage.dispatch \"attend\" {\n" + attendStage + "  }\n  return\n}",
        buffers);
  }
  int64_t straddles = 0;
  std::vector<float> out(qh * hd);
  for (int64_t h = 0; h < qh; ++h) {
    int64_t g = h / (qh / kvh);
    std::vector<float> scores;
    std::vector<const float *> values;
    for (int64_t u = 0; u < ns; ++u) {
      float s = 0;
      for (int64_t d = 0; d < hd; ++d)
        s += qp[h * hd + d] * sk[(g * ns + u) * hd + d];
      scores.push_back(s * float(1.0 / std::sqrt(double(hd))));
      values.push_back(&sv[(g * ns + u) * hd]);
    }
    for (int64_t back = 0; back < std::min<int64_t>(pos + 1, groupWindows[g]); ++back) {
      int64_t slot = ((pos - back) % W + W) % W;
      float s = 0;
      for (int64_t d = 0; d < hd; ++d)
        s += qr[h * hd + d] * kr[(g * W + slot) * hd + d];
      scores.push_back(s * float(1.0 / std::sqrt(double(hd))));
      values.push_back(&vr[(g * W + slot) * hd]);
    }
    float mx = *std::max_element(scores.begin(), scores.end());
    // Blocks whose own floor keeps a key the head's floor drops.
    for (size_t from = 0; blockKeys > 0 && from < scores.size(); from += size_t(blockKeys)) {
      size_t to = std::min(scores.size(), from + size_t(blockKeys));
      float blockMax = *std::max_element(scores.begin() + from, scores.begin() + to);
      bool kept = blockMax - mx >= -16, loses = false;
      for (size_t i = from; i < to; ++i)
        loses |= scores[i] - blockMax >= -16 && scores[i] - mx < -16;
      straddles += kept && loses;
    }
    double l = 0;
    std::vector<double> wts(scores.size());
    for (size_t i = 0; i < scores.size(); ++i) {
      wts[i] = scores[i] - mx >= -16 ? std::exp(double(scores[i] - mx)) : 0.0;
      l += wts[i];
    }
    for (int64_t d = 0; d < hd; ++d) {
      double acc = 0;
      for (size_t i = 0; i < scores.size(); ++i)
        acc += wts[i] * values[i][d];
      out[h * hd + d] = float(acc / l);
    }
  }
  expectNear(valuesOf<float>(buffers.back()), out, 1e-4f, "attention output");
  if (straddling)
    *straddling = straddles;
}

TEST_F(KernelExecution, AttentionSinksGroupWindowsOddHeads) {
  checkAttention(/*qh=*/3, /*kvh=*/1, /*hd=*/16, /*W=*/8, /*ns=*/2, /*pos=*/10, {5});
}

// A long ring: key_scores over three blocks of 128 keys (the second group's
// window of 203 leaves its last block idle); each value lane walks ~20 keys
// (a trip of kValueKeysInFlight and a remainder), the sinks fall to the first
// slices, two slices of 16 dims.
TEST_F(KernelExecution, AttentionLongRingManyKeysALane) {
  checkAttention(/*qh=*/4, /*kvh=*/2, /*hd=*/32, /*W=*/320, /*ns=*/3, /*pos=*/1000, {320, 203});
}

// Early in a long ring, no sinks: the blocks of key_scores past the head's
// keys have nothing to do; a head dim of 24 is three slices of 8 dims.
TEST_F(KernelExecution, AttentionEarlyPositionNoSinksOddDims) {
  checkAttention(/*qh=*/2, /*kvh=*/1, /*hd=*/24, /*W=*/300, /*ns=*/0, /*pos=*/40, {300});
}

// A head dim below 8: 4 lanes a key, so a block's keys (8 a lane) outnumber
// the workgroup's threads and each thread sums the partials of several keys;
// sinks in the first block's first keys only.
TEST_F(KernelExecution, AttentionHeadDimFourKeysPastTheThreads) {
  checkAttention(/*qh=*/2, /*kvh=*/1, /*hd=*/4, /*W=*/700, /*ns=*/2, /*pos=*/1500, {700});
}

// The split_keys kernel: blocks of 64 keys (three sinks in the first), two
// KV heads with windows of 320 and 203 (the second's last blocks empty), and
// keys spread so each head's scores span well past the e^-16 floor: blocks
// whose own floor keeps keys the head's drops are summed again, exactly (the
// dropped keys' values are 1e6, so a kernel keeping one is off by ~0.1).
TEST_F(KernelExecution, SplitKeysAttentionStraddlingBlocks) {
  int64_t straddling = 0;
  checkAttention(/*qh=*/2, /*kvh=*/2, /*hd=*/32, /*W=*/320, /*ns=*/3, /*pos=*/1000, {320, 203},
                 /*blockKeys=*/64, /*keySpread=*/9.0f, &straddling);
  EXPECT_GT(straddling, 0) << "no block straddles the floor: the test misses the recompute";
}

// Blocks of 5 keys, fewer than the sinks (7) and than a trip of the scoring
// lanes; early in the ring, so most blocks are empty; head dim 24 (one
// value slice a thread walks several dims of: 24 of 256 lanes).
TEST_F(KernelExecution, SplitKeysSmallBlocksEarlyPosition) {
  checkAttention(/*qh=*/2, /*kvh=*/1, /*hd=*/24, /*W=*/300, /*ns=*/7, /*pos=*/40, {300},
                 /*blockKeys=*/5);
}

// A head dim below 8 and 700 keys in blocks of 128 (two trips of the
// scoring lanes a block).
TEST_F(KernelExecution, SplitKeysHeadDimFourTwoTrips) {
  checkAttention(/*qh=*/2, /*kvh=*/1, /*hd=*/4, /*W=*/700, /*ns=*/2, /*pos=*/1500, {700},
                 /*blockKeys=*/128);
}

// Blocks of 300 keys: more than a thread holds (8 slices of head dim 32, 38 keys
// each), so the slices walk the block's values after the weights; three scoring
// trips a block.
TEST_F(KernelExecution, SplitKeysWideBlocksWalkTheirValues) {
  checkAttention(/*qh=*/2, /*kvh=*/1, /*hd=*/32, /*W=*/700, /*ns=*/3, /*pos=*/900, {700},
                 /*blockKeys=*/300);
}

// Past the 4,096 weights an attention kernel of its own holds: a ring of 5,000
// keys and 3 sinks, 79 blocks a head, only the split_keys kernel runs it.
TEST_F(KernelExecution, SplitKeysPastTheHeldWeights) {
  checkAttention(/*qh=*/2, /*kvh=*/1, /*hd=*/16, /*W=*/5000, /*ns=*/3, /*pos=*/7000, {5000},
                 /*blockKeys=*/64);
}

TEST_F(KernelExecution, RopeKvWritePartialRotary) {
  const int64_t qh = 3, kvh = 1, hd = 16, rd = 8, W = 8, pos = 13;
  const float theta = 10000.0f;
  std::vector<float> q = rng.uniform(qh * hd), k = rng.uniform(kvh * hd), v = rng.uniform(kvh * hd);
  std::vector<int32_t> params = {0, int32_t(pos), 0, 0};
  std::vector<float> kr(kvh * W * hd, 0.0f), vr(kvh * W * hd, 0.0f);
  std::vector<Bytes> buffers = {bytesOf(q), bytesOf(k), bytesOf(v), bytesOf(params),
                                bytesOf(std::vector<float>(qh * hd)), bytesOf(kr), bytesOf(vr)};
  run(R"(
func.func @f(%q: memref<48xf32>, %k: memref<16xf32>, %v: memref<16xf32>, %p: memref<4xi32>,
             %qo: memref<48xf32>, %kr: memref<1x8x16xf32>, %vr: memref<1x8x16xf32>) {
  stage.dispatch "rope" {
    stage.rope_kv_write q(%q : memref<48xf32>) k(%k : memref<16xf32>) v(%v : memref<16xf32>)
        params(%p : memref<4xi32>) q_out(%qo : memref<48xf32>)
        k_ring(%kr : memref<1x8x16xf32>) v_ring(%vr : memref<1x8x16xf32>)
        {rotary_dim = 8 : i64, rope_theta = 10000.0 : f32}
  }
  return
})", buffers);
  auto rotate = [&](const float *in, float *out) {
    for (int64_t i = 0; i < hd; ++i)
      out[i] = in[i];
    for (int64_t i = 0; i < rd / 2; ++i) {
      double angle = pos * std::pow(double(theta), -2.0 * i / rd);
      double c = std::cos(angle), s = std::sin(angle);
      out[i] = float(in[i] * c - in[i + rd / 2] * s);
      out[i + rd / 2] = float(in[i] * s + in[i + rd / 2] * c);
    }
  };
  std::vector<float> qo(qh * hd);
  for (int64_t h = 0; h < qh; ++h)
    rotate(&q[h * hd], &qo[h * hd]);
  int64_t slot = pos % W;
  rotate(&k[0], &kr[slot * hd]);
  for (int64_t d = 0; d < hd; ++d)
    vr[slot * hd + d] = v[d];
  expectNear(valuesOf<float>(buffers[4]), qo, 1e-4f, "rope q");
  expectNear(valuesOf<float>(buffers[5]), kr, 1e-4f, "rope k ring");
  expectNear(valuesOf<float>(buffers[6]), vr, 0.0f, "v ring");
}

TEST_F(KernelExecution, RouterShellsAndTies) {
  const int64_t E = 5, R = 2, H = 52;
  std::vector<float> x = rng.uniform(H), mu = rng.uniform(E * H), basis = rng.uniform(E * R * H, -0.1f, 0.1f),
                     bias = rng.uniform(E, -1, 1), shells(E, std::numeric_limits<float>::infinity());
  // Expert 0 is masked by its shell; expert 3 is the nearest centre.
  for (int64_t i = 0; i < H; ++i)
    mu[3 * H + i] = x[i] + 0.01f;
  shells[0] = 0.0f;
  bias[0] = 100.0f;
  std::vector<Bytes> buffers = {bytesOf(x), bytesOf(mu), bytesOf(basis), bytesOf(bias),
                                bytesOf(shells), bytesOf(std::vector<int32_t>{-1})};
  run(R"(
func.func @f(%x: memref<52xf32>, %mu: memref<5x52xf32>, %u: memref<5x2x52xf32>,
             %b: memref<5xf32>, %s: memref<5xf32>, %sel: memref<1xi32>) {
  stage.dispatch "route" {
    stage.router input(%x : memref<52xf32>) centres(%mu : memref<5x52xf32>)
        basis(%u : memref<5x2x52xf32>) bias(%b : memref<5xf32>) shells(%s : memref<5xf32>)
        selected(%sel : memref<1xi32>)
  }
  return
})", buffers);
  int best = 0;
  float top = -std::numeric_limits<float>::infinity();
  for (int64_t e = 0; e < E; ++e) {
    double d2 = 0, pn = 0;
    for (int64_t i = 0; i < H; ++i)
      d2 += double(x[i] - mu[e * H + i]) * (x[i] - mu[e * H + i]);
    for (int64_t c = 0; c < R; ++c) {
      double p = 0;
      for (int64_t i = 0; i < H; ++i)
        p += double(x[i] - mu[e * H + i]) * basis[(e * R + c) * H + i];
      pn += p * p;
    }
    float err = float(d2 - pn);
    float score = err > shells[e] ? -std::numeric_limits<float>::infinity() : bias[e] - err;
    if (score > top) {
      top = score;
      best = int(e);
    }
  }
  EXPECT_EQ(valuesOf<int32_t>(buffers[5])[0], best);
}

TEST_F(KernelExecution, EmbedGatherRaggedHidden) {
  const int64_t V = 10, H = 52;
  std::vector<float> table = rng.uniform(V * H);
  std::vector<uint32_t> packed = packF16(table, V, H);
  std::vector<int32_t> params = {7, 0, 0, 0};
  std::vector<Bytes> buffers = {bytesOf(packed), bytesOf(params), bytesOf(std::vector<float>(H))};
  run(R"(
func.func @f(%e: memref<10x7xvector<4xi32>>, %p: memref<4xi32>, %h: memref<52xf32>) {
  stage.dispatch "embed" {
    stage.embed_gather table(%e : memref<10x7xvector<4xi32>>) params(%p : memref<4xi32>)
        out(%h : memref<52xf32>)
  }
  return
})", buffers);
  std::vector<float> expected(table.begin() + 7 * H, table.begin() + 8 * H);
  expectNear(valuesOf<float>(buffers[2]), expected, 0.0f, "embed row");
}

// One pass with an online softmax: the lowest id among tied maxima, −∞
// values (also at the start of a thread's walk), and the log-probability;
// 9,000 values cover the unrolled blocks and the tail. A NaN or no finite
// value gives the vocabulary size.
TEST_F(KernelExecution, SampleGreedyTiesInfinitiesAndNaN) {
  const int64_t V = 9000;
  const char *module = R"(
func.func @f(%v: memref<9000xf32>, %o: memref<2xi32>) {
  stage.dispatch "sample" {
    stage.sample values(%v : memref<9000xf32>) out(%o : memref<2xi32>) {logits}
  }
  return
})";
  auto sample = [&](const std::vector<float> &values) {
    std::vector<Bytes> buffers = {bytesOf(values), bytesOf(std::vector<int32_t>(2, -1))};
    run(module, buffers);
    return valuesOf<int32_t>(buffers[1]);
  };
  std::vector<float> v = rng.uniform(V, -4.0f, 4.0f);
  for (int64_t i = 0; i < V; i += 7)
    v[i] = -INFINITY;
  v[6001] = 9.5f;
  v[8999] = 9.5f;
  v[4100] = 9.5f;
  double sum = 0;
  for (float x : v)
    sum += std::exp(double(x) - 9.5);
  std::vector<int32_t> out = sample(v);
  EXPECT_EQ(out[0], 4100);
  float logprob;
  std::memcpy(&logprob, &out[1], 4);
  EXPECT_NEAR(logprob, -std::log(sum), 1e-5);

  std::vector<float> ninf(V, -INFINITY);
  ninf[5] = 1.0f;
  out = sample(ninf);
  EXPECT_EQ(out[0], 5);
  std::memcpy(&logprob, &out[1], 4);
  EXPECT_NEAR(logprob, 0.0f, 1e-6);

  v[77] = NAN;
  EXPECT_EQ(sample(v)[0], V);
  EXPECT_EQ(sample(std::vector<float>(V, -INFINITY))[0], V);
}

} // namespace
