//===- KernelsMode.cpp - kiln-bench kernels: each kernel of a plan alone --===//
//
// Every distinct kernel of a plan's decode program run alone, R times, the
// caches flushed before each run (kiln_session_time_kernels), after one
// decode step so the buffers hold a token's values: per kernel µs, GB/s on the
// bytes its dispatch binds, their share of the device's read bandwidth, and the
// compiler's estimate beside it. Only the C API.
//
//===----------------------------------------------------------------------===//
#include "KernelsMode.h"

#include "BenchSupport.h"

#include "kiln/runtime.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using kiln::bench::fail;
using kiln::bench::Handles;
using kiln::bench::parseLong;
using kiln::bench::parsePositive;

const char *kKernelsUsage =
    "usage: kiln-bench kernels PLAN.kplan --weights W.safetensors [options]\n"
    "\n"
    "Each distinct kernel of the plan's decode program alone: its first dispatch run R\n"
    "times, each run after a write of --flush-mb MiB that evicts the caches, after one\n"
    "decode step (the buffers hold a token's values). The kernels then leave the state\n"
    "as no model would: the session is only timed, never decoded again.\n"
    "\n"
    "options:\n"
    "  --weights W           the plan's weights (required)\n"
    "  -r, --repetitions R   runs of each kernel (default 20; 1..1000)\n"
    "  --flush-mb M          MiB written before each run (default 256: above twice the\n"
    "                        last-level cache of current GPUs; 0 = caches warm)\n"
    "  --position P          seek to position P first (kernels read a window of P keys)\n"
    "  --read-bandwidth GBPS the device's streaming read bandwidth, for the share column\n"
    "  -o, --output F        md (default) or csv\n"
    "  --device N|NAME       device index or name substring (else env KILN_DEVICE)\n"
    "  -h, --help            this text\n"
    "\n"
    "MB is what the kernel's first dispatch binds (whole bound ranges: an upper bound of\n"
    "what it reads and writes); GB/s is MB over the median run. 'x' is how many decode\n"
    "dispatches run the kernel; the total weights each kernel by it (barriers between\n"
    "dispatches not included).\n";

struct KernelsArguments {
  std::string plan, weights, output = "md", device;
  long repetitions = 20, flushMb = 256, position = 0;
  double readBandwidth = 0;
  bool help = false;
};

bool parseKernelsArguments(int argc, char **argv, KernelsArguments &args) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    const char *text = nullptr;
    auto value = [&]() {
      if (i + 1 >= argc)
        return fail(flag + " needs a value");
      text = argv[++i];
      return true;
    };
    if (flag == "-h" || flag == "--help") {
      args.help = true;
    } else if (flag == "--weights") {
      if (!value()) return false;
      args.weights = text;
    } else if (flag == "-r" || flag == "--repetitions") {
      if (!value() || !parseLong(flag, text, 1, 1000, args.repetitions)) return false;
    } else if (flag == "--flush-mb") {
      if (!value() || !parseLong(flag, text, 0, 4096, args.flushMb)) return false;
    } else if (flag == "--position") {
      if (!value() || !parseLong(flag, text, 0, 1 << 24, args.position)) return false;
    } else if (flag == "-o" || flag == "--output") {
      if (!value()) return false;
      args.output = text;
      if (args.output != "md" && args.output != "csv")
        return fail("--output: expected md or csv, got '" + args.output + "'");
    } else if (flag == "--read-bandwidth") {
      if (!value() || !parsePositive(flag, text, args.readBandwidth)) return false;
    } else if (flag == "--device") {
      if (!value()) return false;
      args.device = text;
    } else if (!flag.empty() && flag[0] == '-') {
      return fail("unknown option '" + flag + "' (see kiln-bench kernels --help)");
    } else if (args.plan.empty()) {
      args.plan = flag;
    } else {
      return fail("kernels takes one plan, got '" + args.plan + "' and '" + flag + "'");
    }
  }
  if (args.help)
    return true;
  if (args.plan.empty())
    return fail("no plan given (see kiln-bench kernels --help)");
  if (args.weights.empty())
    return fail("--weights is required");
  return true;
}

std::string csvField(const char *text) {
  std::string out = "\"";
  for (const char *c = text; *c; ++c)
    out += *c == '"' ? std::string("\"\"") : std::string(1, *c);
  return out + "\"";
}

} // namespace

int runKernelsMode(int argc, char **argv) {
  KernelsArguments args;
  if (!parseKernelsArguments(argc, argv, args))
    return 2;
  if (args.help) {
    std::fputs(kKernelsUsage, stdout);
    return 0;
  }
  Handles h;
  if (!h.load(args.device, args.plan))
    return 1;
  kiln_session_options_t options;
  kiln_session_options_init(&options);
  options.weights_path = args.weights.c_str();
  kiln_plan_info_t info;
  if (!h.check(kiln_session_create(h.plan, &options, &h.session), "session for '" + args.plan + "'") ||
      !h.check(kiln_plan_info(h.plan, &info), "plan info"))
    return 1;
  if (static_cast<uint64_t>(args.position) + 1 > info.max_position) {
    fail("--position " + std::to_string(args.position) + " passes the plan's max_position " +
                std::to_string(info.max_position));
    return 1;
  }
  if (args.position > 0 &&
      !h.check(kiln_session_seek(h.session, static_cast<uint32_t>(args.position)), "seek"))
    return 1;
  int32_t token = 1 % static_cast<int32_t>(info.vocab_size);
  kiln_step_result_t result{};
  if (!h.check(kiln_session_step(h.session, token, &result), "decode step"))
    return 1;
  // One call: each one times every kernel anew, and a plan has no more distinct
  // kernels than kernels.
  size_t count = 0;
  std::vector<kiln_kernel_timing_t> timings(info.kernel_count);
  if (!h.check(kiln_session_time_kernels(h.session, static_cast<uint32_t>(args.repetitions),
                                         static_cast<uint64_t>(args.flushMb) << 20,
                                         timings.data(), timings.size(), &count),
               "time kernels"))
    return 1;
  timings.resize(std::min(count, timings.size()));
  const bool csv = args.output == "csv";
  std::printf(csv ? "kernel,label,dispatches,bound_bytes,min_us,median_us,gb_per_second,"
                    "bandwidth_share_percent,estimated_us\n"
                  : "| kernel | first dispatch | x | MB | min us | median us | GB/s | %% of read BW "
                    "| estimate us |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  double total = 0, estimated = 0;
  for (const kiln_kernel_timing_t &t : timings) {
    const double gbps = t.median_us > 0 ? t.bound_bytes / (t.median_us * 1e3) : 0;
    char share[32] = "", estimate[32] = "";
    if (args.readBandwidth > 0)
      std::snprintf(share, sizeof share, "%.1f", 100 * gbps / args.readBandwidth);
    if (t.estimated_us >= 0)
      std::snprintf(estimate, sizeof estimate, "%.2f", t.estimated_us);
    total += t.median_us * t.dispatches;
    estimated += t.estimated_us >= 0 ? t.estimated_us * t.dispatches : 0;
    if (csv)
      std::printf("%s,%s,%u,%llu,%.3f,%.3f,%.2f,%s,%s\n", csvField(t.kernel_name).c_str(),
                  csvField(t.label).c_str(), t.dispatches,
                  static_cast<unsigned long long>(t.bound_bytes), t.min_us, t.median_us, gbps,
                  share, estimate);
    else
      std::printf("| %s | %s | %u | %.3f | %.2f | %.2f | %.1f | %s | %s |\n", t.kernel_name,
                  t.label, t.dispatches, t.bound_bytes / 1e6, t.min_us, t.median_us, gbps, share,
                  estimate);
  }
  if (!csv)
    std::printf("\ntotal: %zu kernels, %.1f us of kernels a token (median runs x dispatches; "
                "the estimate %.1f us includes dispatch boundaries)\n",
                timings.size(), total, estimated);
  return 0;
}
