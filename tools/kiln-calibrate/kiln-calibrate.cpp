//===- kiln-calibrate.cpp - Measure a device, write a target descriptor ---===//
//
// Runs calibration plans (bench/calibrate/*.mlir compiled by kiln-compile; see
// bench/calibrate/README.md) through the public runtime API and turns their
// wall times into the numbers the cost model needs:
//   submit      a plan of one tiny dispatch: one submit + fence wait
//   boundary    a chain of N dependent tiny dispatches (a barrier each), minus submit
//   no-barrier  N independent tiny dispatches (no barriers), minus submit
//   bandwidth   a pure streaming read (a stage.prefetch of a 256 MiB buffer,
//               `read.source`): its bytes / time
//   stream      a large elementwise add (two reads, one write): reported only
//   mat-vec     f16 and q8_2f decode mat-vecs: bytes / time, as a fraction of bandwidth
//   one wg      the streaming add in one workgroup (fusion's one_workgroup form)
//
//===----------------------------------------------------------------------===//

#include "kiln/Cost/TargetDesc.h"
#include "kiln/IO/Safetensors.h"
#include "kiln/runtime.h"
#include "kiln/schemas/plan_generated.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string plansDir;
  std::string base;
  std::string output;
  std::string name;
  int iterations = 200;
  int deviceIndex = -1;
};

void printHelp() {
  std::printf(
      "usage: kiln-calibrate --plans DIR -o TARGET.json [--name NAME] [--base BASE.json]\n"
      "                      [--iterations N] [--device INDEX]\n\n"
      "Measures the local Vulkan device with the calibration plans in DIR\n"
      "(submit.kplan, chain.kplan, independent.kplan, stream.kplan,\n"
      " matvec-f16.kplan, matvec-q8_2f.kplan, single.kplan, read.kplan; built by\n"
      " kiln-compile from"
      " bench/calibrate/) and writes a target descriptor (docs/cost-model.md).\n"
      "Fields it does not measure come from --base (default: built-in defaults).\n");
}

bool parseArgs(int argc, char **argv, Options &o, std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string &out) {
      if (i + 1 >= argc) {
        error = "option '" + a + "' needs a value";
        return false;
      }
      out = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      printHelp();
      std::exit(0);
    } else if (a == "--plans") {
      if (!value(o.plansDir)) return false;
    } else if (a == "--base") {
      if (!value(o.base)) return false;
    } else if (a == "-o") {
      if (!value(o.output)) return false;
    } else if (a == "--name") {
      if (!value(o.name)) return false;
    } else if (a == "--iterations" || a == "--device") {
      if (!value(v)) return false;
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (*end || n < 0 || (a == "--iterations" && n < 1)) {
        error = "option '" + a + "' needs a whole number, got '" + v + "'";
        return false;
      }
      (a == "--iterations" ? o.iterations : o.deviceIndex) = int(n);
    } else {
      error = "unknown option '" + a + "' (see --help)";
      return false;
    }
  }
  if (o.plansDir.empty() || o.output.empty()) {
    error = "--plans and -o are required (see --help)";
    return false;
  }
  return true;
}

std::string takeMessage(kiln_status_t s) {
  std::string m = kiln_status_message(s);
  kiln_status_free(s);
  return m;
}

// Random weights matching a plan's weight list, so a calibration plan runs;
// `readBytes` gets the size of the plan's `read.source` buffer (0 without one).
bool writeWeightsFor(const std::string &planPath, const std::string &weightsPath,
                     uint64_t &readBytes, std::string &error) {
  std::ifstream in(planPath, std::ios::binary);
  if (!in) {
    error = "cannot open '" + planPath + "'";
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  if (!kiln::plan::VerifyPlanBuffer(verifier)) {
    error = planPath + ": not a valid plan";
    return false;
  }
  const kiln::plan::Plan *plan = kiln::plan::GetPlan(bytes.data());
  readBytes = 0;
  if (plan->buffers())
    for (const kiln::plan::Buffer *b : *plan->buffers())
      if (b->name() && b->name()->str() == "read.source")
        readBytes += b->byte_size();
  kiln::io::SafetensorsWriter writer;
  writer.setMetadata("kiln.format", plan->weight_format() ? plan->weight_format()->str() : "f16");
  writer.setMetadata("kiln.family", plan->model_family()->str());
  std::mt19937 rng(1);
  if (plan->weights()) {
    for (const kiln::plan::WeightTensor *w : *plan->weights()) {
      std::vector<int64_t> shape(w->shape()->begin(), w->shape()->end());
      kiln::io::DType dtype = w->dtype() == kiln::plan::DType::F16 ? kiln::io::DType::F16
                              : w->dtype() == kiln::plan::DType::I8 ? kiln::io::DType::I8
                                                                    : kiln::io::DType::F32;
      size_t n = size_t(kiln::io::shapeElementCount(shape)) * kiln::io::dtypeSize(dtype);
      std::vector<uint8_t> data(n);
      // Small finite values in every dtype: f16 0x2xxx is about 2^-5..2^-4.
      for (size_t i = 0; i < n; ++i)
        data[i] = dtype == kiln::io::DType::F16 ? (i % 2 ? 0x2c : uint8_t(rng()))
                  : dtype == kiln::io::DType::F32 ? (i % 4 == 3 ? 0x3c : 0)
                                                  : uint8_t(rng() % 64);
      if (auto s = writer.addTensor(w->name()->str(), dtype, shape, std::move(data)); !s) {
        error = s.error().message();
        return false;
      }
    }
  }
  if (auto s = writer.write(weightsPath); !s) {
    error = s.error().message();
    return false;
  }
  return true;
}

struct Measurement {
  double msPerCall = 0;
  /// GPU time of a call (two timestamps around its program), 0 where the
  /// device has no timestamps: what the kernels and barriers cost, without
  /// the submit and the fence wait, which host time folds into every figure.
  double gpuMsPerCall = 0;
  uint32_t dispatches = 0;
  uint64_t bytes = 0;
  /// The read plan's source: bytes the plan's bytes_per_call leaves out (a
  /// prefetch's binding is counted where a reader reads it again).
  uint64_t readBytes = 0;
};

bool measure(kiln_instance_t *instance, const std::string &planPath, int iterations,
             Measurement &out, std::string &error) {
  std::string weights = planPath + ".weights.safetensors";
  if (!writeWeightsFor(planPath, weights, out.readBytes, error))
    return false;
  kiln_plan_t *plan = nullptr;
  kiln_session_t *session = nullptr;
  kiln_status_t s = kiln_plan_load_file(instance, planPath.c_str(), &plan);
  if (!s) {
    kiln_session_options_t so;
    kiln_session_options_init(&so);
    so.weights_path = weights.c_str();
    s = kiln_session_create(plan, &so, &session);
  }
  kiln_plan_info_t info{};
  if (!s)
    s = kiln_plan_info(plan, &info);
  // Warm up, then time `iterations` calls; positions wrap well inside max_position.
  kiln_session_stats_t before{}, after{};
  for (int phase = 0; !s && phase < 2; ++phase) {
    if (phase == 1)
      s = kiln_session_stats(session, &before);
    int n = phase == 0 ? 10 : iterations;
    for (int i = 0; !s && i < n; ++i) {
      if (kiln_session_position(session) + 1 >= info.max_position)
        s = kiln_session_reset(session);
      if (!s)
        s = kiln_session_step(session, 0, nullptr);
    }
  }
  if (!s)
    s = kiln_session_stats(session, &after);
  if (s) {
    error = planPath + ": " + takeMessage(s);
  } else {
    out.msPerCall = (after.total_ms - before.total_ms) / double(after.calls - before.calls);
    // decode_gpu_ms_per_call is a mean over every call: take the timed ones'.
    double gpuAfter = after.decode_gpu_ms_per_call * double(after.decode_calls);
    double gpuBefore = before.decode_gpu_ms_per_call * double(before.decode_calls);
    if (after.decode_gpu_ms_per_call > 0 && after.decode_calls > before.decode_calls)
      out.gpuMsPerCall = (gpuAfter - gpuBefore) / double(after.decode_calls - before.decode_calls);
    out.dispatches = after.dispatches_per_token;
    out.bytes = after.bytes_per_token;
  }
  kiln_session_release(session);
  kiln_plan_release(plan);
  std::remove(weights.c_str());
  return !s;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  std::string error;
  if (!parseArgs(argc, argv, o, error)) {
    std::fprintf(stderr, "kiln-calibrate: %s\n", error.c_str());
    return 1;
  }
  kiln::cost::TargetDesc desc;
  if (!o.base.empty()) {
    auto base = kiln::cost::loadTargetDesc(o.base);
    if (!base) {
      std::fprintf(stderr, "kiln-calibrate: %s\n", base.error().message().c_str());
      return 1;
    }
    desc = *base;
  }
  kiln_instance_options_t io;
  kiln_instance_options_init(&io);
  io.device_index = o.deviceIndex;
  kiln_instance_t *instance = nullptr;
  if (kiln_status_t s = kiln_instance_create(&io, &instance)) {
    std::fprintf(stderr, "kiln-calibrate: %s\n", takeMessage(s).c_str());
    return 1;
  }
  kiln_device_info_t dev{};
  kiln_instance_device_info(instance, &dev);
  std::fprintf(stderr, "kiln-calibrate: device '%s'\n", dev.name);

  const char *names[] = {"submit",       "chain",  "independent", "stream", "matvec-f16",
                         "matvec-q8_2f", "single", "read"};
  constexpr int kCount = 8;
  Measurement m[kCount];
  for (int i = 0; i < kCount; ++i) {
    std::string path = o.plansDir + "/" + names[i] + ".kplan";
    std::fprintf(stderr, "kiln-calibrate: [%d/%d] %s\n", i + 1, kCount, names[i]);
    if (!measure(instance, path, o.iterations, m[i], error)) {
      std::fprintf(stderr, "kiln-calibrate: %s\n", error.c_str());
      kiln_instance_release(instance);
      return 1;
    }
  }
  kiln_instance_release(instance);
  // The chains time one dispatch each: fused (kiln-compile without
  // --fusion=none), they are one kernel and the figures would be the chain's.
  for (int i : {1, 2})
    if (m[i].dispatches < m[0].dispatches + 2) {
      std::fprintf(stderr,
                   "kiln-calibrate: %s.kplan holds %u dispatches, the one-dispatch plan %u: "
                   "compile the calibration plans with kiln-compile --fusion=none "
                   "(bench/calibrate/run.sh)\n",
                   names[i], m[i].dispatches, m[0].dispatches);
      return 1;
    }

  // GPU timestamps where every plan has them: a chain's extra dispatches then
  // cost what a barriered dispatch costs on the device (vkprobe's figure),
  // and a stream's bytes are over its kernel's time alone. Else host wall
  // time less the one-dispatch plan's (submit and fence wait included).
  bool gpuTimed = std::all_of(m, m + kCount, [](const Measurement &x) { return x.gpuMsPerCall > 0; });
  auto callMs = [&](const Measurement &x) { return gpuTimed ? x.gpuMsPerCall : x.msPerCall; };
  auto perDispatchUs = [&](const Measurement &many) {
    uint32_t extra = many.dispatches > m[0].dispatches ? many.dispatches - m[0].dispatches : 1;
    return std::max(0.01, (callMs(many) - callMs(m[0])) * 1000.0 / double(extra));
  };
  // Less the one-dispatch plan's time: a submit and fence wait on the host's
  // clock; on the GPU's, the tiny dispatch each plan ends with.
  auto bandwidthGBps = [&](const Measurement &x) {
    double us = std::max(1e-3, (callMs(x) - callMs(m[0])) * 1000.0);
    return double(x.readBytes ? x.readBytes : x.bytes) / (us * 1e3);
  };
  desc.name = o.name.empty() ? std::string(dev.name) : o.name;
  desc.api = "vulkan";
  desc.submitMicros = m[0].msPerCall * 1000.0;
  desc.boundaryMicros = perDispatchUs(m[1]);
  desc.boundaryNoBarrierMicros = perDispatchUs(m[2]);
  // The pure read: what a decode token's weight stream can reach. The
  // elementwise add's figure (a write per two reads) is reported beside it.
  double streamGBps = bandwidthGBps(m[3]);
  desc.readBandwidthGBps = bandwidthGBps(m[7]);
  double f16 = bandwidthGBps(m[4]), q8 = bandwidthGBps(m[5]);
  desc.matvecEfficiency = std::min(1.0, std::max(f16, q8) / desc.readBandwidthGBps);
  desc.singleWorkgroupBandwidthGBps = bandwidthGBps(m[6]);
  desc.subgroupSize = dev.subgroup_size;
  desc.maxWorkgroupSize = dev.max_workgroup_invocations;
  std::ostringstream src;
  src << "kiln-calibrate on '" << dev.name << "' ("
      << (gpuTimed ? "GPU timestamps" : "host wall time, no GPU timestamps")
      << "): submit " << desc.submitMicros
      << " us, boundary " << desc.boundaryMicros << " us, no-barrier "
      << desc.boundaryNoBarrierMicros << " us, read " << desc.readBandwidthGBps
      << " GB/s (elementwise add " << streamGBps << " GB/s), matvec f16 " << f16 << " GB/s, q8_2f " << q8 << " GB/s, one workgroup "
      << desc.singleWorkgroupBandwidthGBps << " GB/s";
  desc.source = src.str();
  std::fprintf(stderr, "kiln-calibrate: %s\n", desc.source.c_str());
  if (auto s = kiln::cost::saveTargetDesc(desc, o.output); !s) {
    std::fprintf(stderr, "kiln-calibrate: %s\n", s.error().message().c_str());
    return 1;
  }
  return 0;
}
