// kiln-run: load a plan and its weights, feed a prompt, print the generated tokens.
// Uses only the public C API; every failure reaches main() as one status, printed once.
#include "kiln/runtime.h"

#include "ProgressBar.h"
#include "ReferenceCheck.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

const char *kUsage =
    "usage: kiln-run MODEL.kplan --weights W.safetensors --prompt 1,2,3 [options]\n"
    "       kiln-run --list-devices\n"
    "\n"
    "options:\n"
    "  --weights PATH        safetensors weights (required)\n"
    "  --prompt IDS          comma-separated token ids (required, at least one)\n"
    "  --max-new N           tokens to generate (default 64)\n"
    "  --stop-token ID       stop after generating ID (printed); the session stands there\n"
    "  --temperature T       0 = greedy (default 0)\n"
    "  --top-p P             nucleus mass in (0, 1] (default 1)\n"
    "  --seed S              sampler seed (default 0)\n"
    "  --head-gate G         log-prob gate of a gated head (default -inf)\n"
    "  --head-top-p P        a gated head keeps the smallest set of clusters by mass\n"
    "                        reaching P, decided on the device (default 1 = all)\n"
    "  --device N|NAME       device index or name substring (else env KILN_DEVICE)\n"
    "  --stats               print dispatches, barriers, bytes and ms per token\n"
    "  --profile             print GPU time per dispatch of the decode program\n"
    "  --profile-prefill     the same for the plan's prefill program (its calls of the\n"
    "                        prompt; the first is a warm-up)\n"
    "  --no-weight-check     do not scan the weights for NaN/Inf at load (faster start)\n"
    "  --validate            run under the Khronos validation layer (synchronization\n"
    "                        validation on) when installed; its errors go to stderr as\n"
    "                        'kiln: vulkan validation error: ...'\n"
    "  --wait auto|poll|block  how to wait for the device: poll the fence (a busy core, no\n"
    "                        driver sleep) or block in the driver; auto (default) polls\n"
    "                        on a GPU and blocks on a CPU device\n"
    "  --robust-kernels auto|on|off  clamp every indexed access of the plan's kernels\n"
    "                        into its array (an untrusted plan's stray index stays inside\n"
    "                        it); auto (default) does on a CPU device, where kernels run\n"
    "                        in this process, and not on a GPU\n"
    "  --start-position P    benchmark: start at position P over zeroed state (a full\n"
    "                        window of zeros), to time tokens at a long position without\n"
    "                        feeding every earlier row; the tokens are not the model's\n"
    "  --tokens-per-submit N greedy tokens one submission may run when the plan picks on\n"
    "                        the device (default 16; 1 = a submission per token;\n"
    "                        --check-reference always steps one token at a time)\n"
    "  --progress            show the weight upload's progress bar even when stderr is\n"
    "                        not a terminal (on a terminal it shows by default)\n"
    "  --quiet               no progress bar\n"
    "  --print-logprobs      print each generated token's log-probability\n"
    "  --check-reference C [W]\n"
    "                        run the CPU reference of config C (weights W, default --weights)\n"
    "                        side by side:\n"
    "                        log-probs must agree, and greedy tokens match; at a\n"
    "                        temperature, every draw must lie in the reference's top-p\n"
    "                        set and the draws pass a chi-square test against its\n"
    "                        probabilities (exit 1 if not)\n"
    "  --tolerance T         max abs log-prob error for --check-reference (default 1e-3)\n"
    "  --list-devices        list Vulkan devices and exit\n"
    "  --help                this text\n";

struct Arguments {
  std::string plan, weights, device, checkReference, referenceWeights;
  double tolerance = 1e-3;
  std::vector<int32_t> prompt;
  bool havePrompt = false;
  long maxNew = 64;
  long stopToken = -1;
  double temperature = 0, topP = 1, headGate = -INFINITY, headTopP = 1;
  uint64_t seed = 0;
  bool stats = false, profile = false, profilePrefill = false, printLogprobs = false, listDevices = false, help = false;
  bool noWeightCheck = false;
  bool validate = false;
  kiln_wait_mode_t waitMode = KILN_WAIT_AUTO;
  kiln_robust_mode_t robustKernels = KILN_ROBUST_AUTO;
  long tokensPerSubmit = 16;
  long startPosition = 0;
  bool forceProgress = false, quiet = false;
};

bool fail(const std::string &message) {
  std::fprintf(stderr, "kiln-run: error: %s\n", message.c_str());
  return false;
}

bool parseLong(const std::string &flag, const char *text, long minimum, long &out) {
  char *end = nullptr;
  errno = 0;
  long value = std::strtol(text, &end, 10);
  if (errno || end == text || *end || value < minimum)
    return fail(flag + ": '" + text + "' is not an integer >= " + std::to_string(minimum));
  out = value;
  return true;
}

bool parseDouble(const std::string &flag, const char *text, double &out) {
  char *end = nullptr;
  errno = 0;
  double value = std::strtod(text, &end);
  if (errno || end == text || *end || std::isnan(value))
    return fail(flag + ": '" + text + "' is not a number");
  out = value;
  return true;
}

bool parsePrompt(const char *text, std::vector<int32_t> &out) {
  std::string all = text;
  size_t start = 0;
  while (true) {
    size_t comma = all.find(',', start);
    std::string piece = all.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    long value;
    if (piece.empty() || !parseLong("--prompt", piece.c_str(), 0, value) || value > INT32_MAX)
      return fail("--prompt: '" + all + "' is not a comma-separated list of token ids");
    out.push_back(static_cast<int32_t>(value));
    if (comma == std::string::npos)
      return true;
    start = comma + 1;
  }
}

bool parseArguments(int argc, char **argv, Arguments &args) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&](const char *&out) {
      if (i + 1 >= argc)
        return fail(flag + " needs a value");
      out = argv[++i];
      return true;
    };
    const char *text = nullptr;
    if (flag == "--help" || flag == "-h") {
      args.help = true;
    } else if (flag == "--list-devices") {
      args.listDevices = true;
    } else if (flag == "--stats") {
      args.stats = true;
    } else if (flag == "--no-weight-check") {
      args.noWeightCheck = true;
    } else if (flag == "--validate") {
      args.validate = true;
    } else if (flag == "--wait") {
      if (!value(text)) return false;
      const std::string mode = text;
      if (mode == "auto")
        args.waitMode = KILN_WAIT_AUTO;
      else if (mode == "poll")
        args.waitMode = KILN_WAIT_POLL;
      else if (mode == "block")
        args.waitMode = KILN_WAIT_BLOCK;
      else
        return fail("--wait: expected auto, poll or block, got '" + mode + "'");
    } else if (flag == "--robust-kernels") {
      if (!value(text)) return false;
      const std::string mode = text;
      if (mode == "auto")
        args.robustKernels = KILN_ROBUST_AUTO;
      else if (mode == "on")
        args.robustKernels = KILN_ROBUST_ON;
      else if (mode == "off")
        args.robustKernels = KILN_ROBUST_OFF;
      else
        return fail("--robust-kernels: expected auto, on or off, got '" + mode + "'");
    } else if (flag == "--start-position") {
      if (!value(text) || !parseLong(flag, text, 0, args.startPosition)) return false;
    } else if (flag == "--tokens-per-submit") {
      if (!value(text) || !parseLong(flag, text, 1, args.tokensPerSubmit)) return false;
      if (args.tokensPerSubmit > 4096)
        return fail("--tokens-per-submit: at most 4096");
    } else if (flag == "--progress") {
      args.forceProgress = true;
    } else if (flag == "--quiet") {
      args.quiet = true;
    } else if (flag == "--profile") {
      args.profile = true;
    } else if (flag == "--profile-prefill") {
      args.profile = args.profilePrefill = true;
    } else if (flag == "--print-logprobs") {
      args.printLogprobs = true;
    } else if (flag == "--weights") {
      if (!value(text)) return false;
      args.weights = text;
    } else if (flag == "--prompt") {
      if (!value(text) || !parsePrompt(text, args.prompt)) return false;
      args.havePrompt = true;
    } else if (flag == "--stop-token") {
      if (!value(text) || !parseLong(flag, text, 0, args.stopToken)) return false;
    } else if (flag == "--max-new") {
      if (!value(text) || !parseLong(flag, text, 0, args.maxNew)) return false;
    } else if (flag == "--temperature") {
      if (!value(text) || !parseDouble(flag, text, args.temperature)) return false;
      if (args.temperature < 0) return fail("--temperature must be >= 0");
    } else if (flag == "--top-p") {
      if (!value(text) || !parseDouble(flag, text, args.topP)) return false;
      if (!(args.topP > 0 && args.topP <= 1)) return fail("--top-p must be in (0, 1]");
    } else if (flag == "--head-top-p") {
      if (!value(text) || !parseDouble(flag, text, args.headTopP)) return false;
      if (!(args.headTopP > 0 && args.headTopP <= 1)) return fail("--head-top-p must be in (0, 1]");
    } else if (flag == "--head-gate") {
      if (!value(text) || !parseDouble(flag, text, args.headGate)) return false;
    } else if (flag == "--seed") {
      long seed;
      if (!value(text) || !parseLong(flag, text, 0, seed)) return false;
      args.seed = static_cast<uint64_t>(seed);
    } else if (flag == "--check-reference") {
      if (!value(text)) return false;
      args.checkReference = text;
      // Optional: the reference's own weights file (default: --weights); a
      // next word that is no flag and no .kplan is taken as that file.
      if (i + 1 < argc) {
        std::string next = argv[i + 1];
        bool isPlan = next.size() >= 6 && next.compare(next.size() - 6, 6, ".kplan") == 0;
        if (!next.empty() && next[0] != '-' && !isPlan)
          args.referenceWeights = argv[++i];
      }
    } else if (flag == "--tolerance") {
      if (!value(text) || !parseDouble(flag, text, args.tolerance)) return false;
      if (!(args.tolerance >= 0)) return fail("--tolerance must be >= 0");
    } else if (flag == "--device") {
      if (!value(text)) return false;
      args.device = text;
    } else if (!flag.empty() && flag[0] == '-') {
      return fail("unknown option '" + flag + "' (see --help)");
    } else if (args.plan.empty()) {
      args.plan = flag;
    } else {
      return fail("unexpected argument '" + flag + "' (one plan only)");
    }
  }
  if (args.help || args.listDevices)
    return true;
  if (args.plan.empty())
    return fail("no plan given (see --help)");
  if (args.weights.empty())
    return fail("--weights is required");
  if (!args.havePrompt)
    return fail("--prompt is required");
  if (!args.checkReference.empty() && args.startPosition != 0)
    return fail("--start-position runs over zeroed state, which the reference does not "
                "have: it cannot be checked (leave one of them out)");
  if (!args.checkReference.empty() && args.headTopP < 1 && args.headGate != -INFINITY)
    return fail("--check-reference: the reference gates its head from --head-top-p or "
                "--head-gate, not both");
  return true;
}

const char *typeName(kiln_device_type_t type) {
  switch (type) {
  case KILN_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
  case KILN_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
  case KILN_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
  case KILN_DEVICE_TYPE_CPU: return "CPU";
  default: return "other";
  }
}

// Prints the status once and returns the exit code; frees it.
int report(kiln_status_t status) {
  std::fprintf(stderr, "kiln-run: error: %s: %s\n", kiln_status_code_name(kiln_status_code(status)),
               kiln_status_message(status));
  kiln_status_free(status);
  return 1;
}

int listDevices() {
  size_t count = 0;
  if (kiln_status_t status = kiln_enumerate_devices(nullptr, 0, &count))
    return report(status);
  std::vector<kiln_device_info_t> devices(count);
  if (kiln_status_t status = kiln_enumerate_devices(devices.data(), devices.size(), &count))
    return report(status);
  for (const auto &device : devices)
    std::printf("%u: %s (%s, subgroup %u, max workgroup %u, %.1f GiB device-local, conditional "
                "rendering %s)\n",
                device.index, device.name, typeName(device.type), device.subgroup_size,
                device.max_workgroup_invocations, device.device_local_bytes / 1073741824.0,
                device.conditional_rendering ? "yes" : "no");
  return 0;
}

struct Handles {
  kiln_instance_t *instance = nullptr;
  kiln_plan_t *plan = nullptr;
  kiln_session_t *session = nullptr;
  ~Handles() {
    kiln_session_release(session);
    kiln_plan_release(plan);
    kiln_instance_release(instance);
  }
};

int run(const Arguments &args) {
  Handles handles;
  kiln_instance_options_t instanceOptions;
  kiln_instance_options_init(&instanceOptions);
  instanceOptions.enable_validation = args.validate ? 1 : 0;
  long index = -1;
  char *end = nullptr;
  if (!args.device.empty()) {
    index = std::strtol(args.device.c_str(), &end, 10);
    if (*end) {
      index = -1;
      instanceOptions.device_name = args.device.c_str();
    }
  }
  instanceOptions.device_index = static_cast<int32_t>(index);
  if (kiln_status_t status = kiln_instance_create(&instanceOptions, &handles.instance))
    return report(status);
  if (kiln_status_t status = kiln_plan_load_file(handles.instance, args.plan.c_str(), &handles.plan))
    return report(status);

  kiln_session_options_t options;
  kiln_session_options_init(&options);
  options.weights_path = args.weights.c_str();
  options.temperature = static_cast<float>(args.temperature);
  options.top_p = static_cast<float>(args.topP);
  options.seed = args.seed;
  options.head_gate = static_cast<float>(args.headGate);
  options.head_top_p = static_cast<float>(args.headTopP);
  options.enable_profiling = args.profile ? 1 : 0;
  options.profile_prefill = args.profilePrefill ? 1 : 0;
  options.wait_mode = args.waitMode;
  options.robust_kernels = args.robustKernels;
  options.tokens_per_submit = static_cast<uint32_t>(args.tokensPerSubmit);
  options.skip_weight_check = args.noWeightCheck ? 1 : 0;
  kiln::tools::ProgressBar uploadBar("kiln-run: weights");
  if (!args.quiet && (args.forceProgress || isatty(STDERR_FILENO))) {
    options.upload_progress = &kiln::tools::ProgressBar::callback;
    options.upload_progress_user_data = &uploadBar;
  }
  if (kiln_status_t status = kiln_session_create(handles.plan, &options, &handles.session))
    return report(status);
  if (args.startPosition > 0)
    if (kiln_status_t status = kiln_session_seek(
            handles.session, static_cast<uint32_t>(std::min<long>(args.startPosition, UINT32_MAX))))
      return report(status);

  std::vector<kiln_step_result_t> generated;
  // --check-reference: the reference takes the plan's cut of the prompt into calls.
  std::unique_ptr<kiln::tools::ReferenceRunner> reference;
  kiln_plan_info_t info{};
  if (kiln_status_t status = kiln_plan_info(handles.plan, &info))
    return report(status);
  if (args.stopToken >= static_cast<long>(info.vocab_size))
    return fail("--stop-token " + std::to_string(args.stopToken) + " is not a token: vocab_size is " +
                std::to_string(info.vocab_size)), 1;
  if (!args.checkReference.empty()) {
    std::string error;
    reference = kiln::tools::ReferenceRunner::create(
        args.checkReference,
        args.referenceWeights.empty() ? args.weights : args.referenceWeights,
        static_cast<float>(args.headGate), static_cast<float>(args.headTopP), error);
    if (!reference)
      return fail("--check-reference: " + error), 1;
  }
  double worstError = 0;
  bool tokensDiffer = false;
  kiln::tools::DrawCheck draws(static_cast<float>(args.temperature), static_cast<float>(args.topP));
  std::vector<float> planLogprobs(info.vocab_size), referenceLogprobs;
  auto check = [&](const std::vector<int32_t> &call, int32_t planToken) -> bool {
    std::string error;
    if (!reference->call(call, referenceLogprobs, error))
      return fail("--check-reference: reference: " + error);
    if (kiln_status_t status = kiln_session_read_logprobs(handles.session, planLogprobs.data(),
                                                          planLogprobs.size())) {
      report(status);
      return false;
    }
    kiln::tools::StepComparison step =
        kiln::tools::compareStep(planToken, planLogprobs, referenceLogprobs);
    if (args.temperature > 0) {
      if (!draws.add(planToken, referenceLogprobs) && draws.outside() == 1)
        std::fprintf(stderr, "check-reference: step %zu: plan drew %d, outside the reference's "
                     "top-p set\n", generated.size(), planToken);
    } else if (step.planToken != step.referenceToken && !tokensDiffer) {
      std::fprintf(stderr, "check-reference: step %zu: plan chose %d, reference %d\n",
                   generated.size(), step.planToken, step.referenceToken);
      tokensDiffer = true;
    }
    worstError = std::max(worstError, step.maxAbsError);
    return true;
  };

  kiln_step_result_t result{};
  // Wall time of the decode loop after the prompt (host sampling and checks
  // included).
  auto decodeStart = std::chrono::steady_clock::now();
  if (args.maxNew > 0) {
    if (kiln_status_t status = kiln_session_prefill(handles.session, args.prompt.data(),
                                                    args.prompt.size(), &result))
      return report(status);
    if (reference) {
      size_t rows = info.prefill_max_rows ? info.prefill_max_rows : 1, start = 0;
      for (; start + rows < args.prompt.size(); start += rows) {
        std::string error;
        std::vector<int32_t> call(args.prompt.begin() + start, args.prompt.begin() + start + rows);
        if (!reference->call(call, referenceLogprobs, error))
          return fail("--check-reference: reference: " + error), 1;
      }
      if (!check(std::vector<int32_t>(args.prompt.begin() + start, args.prompt.end()), result.token))
        return 1;
    }
    generated.push_back(result);
    decodeStart = std::chrono::steady_clock::now();
    // The reference compares every step's log-probabilities: one step a call.
    // Otherwise the session runs as many greedy steps a submission as it may.
    const size_t wanted = static_cast<size_t>(args.maxNew);
    auto stopped = [&] {
      return args.stopToken >= 0 && generated.back().token == args.stopToken;
    };
    if (!reference && generated.size() < wanted && !stopped()) {
      std::vector<kiln_step_result_t> picks(wanted - generated.size());
      size_t produced = picks.size();
      kiln_status_t status =
          args.stopToken >= 0
              ? kiln_session_generate_until(handles.session, result.token, picks.size(),
                                            static_cast<int32_t>(args.stopToken), picks.data(),
                                            &produced)
              : kiln_session_generate(handles.session, result.token, picks.size(), picks.data());
      if (status)
        return report(status);
      generated.insert(generated.end(), picks.begin(), picks.begin() + produced);
    }
    while (generated.size() < wanted && !stopped()) {
      int32_t fed = result.token;
      if (kiln_status_t status = kiln_session_step(handles.session, fed, &result))
        return report(status);
      if (reference && !check({fed}, result.token))
        return 1;
      generated.push_back(result);
    }
  }
  const double decodeWallMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - decodeStart)
          .count();
  for (size_t i = 0; i < generated.size(); ++i)
    std::printf(i ? ",%d" : "%d", generated[i].token);
  std::printf("\n");
  if (args.printLogprobs)
    for (const auto &step : generated)
      std::printf("token %d logprob %.6f\n", step.token, step.logprob);
  if (reference) {
    bool ok = !tokensDiffer && worstError <= args.tolerance;
    if (args.temperature > 0) {
      const bool drawsOk = draws.outside() == 0 && draws.chiSquare() < draws.critical();
      std::printf("check-reference: %zu draws at temperature %g, top-p %g: %zu outside the "
                  "reference's top-p set, PIT chi-square %.1f (critical %.1f): %s\n",
                  draws.draws(), args.temperature, args.topP, draws.outside(), draws.chiSquare(),
                  draws.critical(), drawsOk ? "PASS" : "FAIL");
      ok = ok && drawsOk;
    }
    std::printf("check-reference: %zu steps, tokens %s, max abs log-prob error %.3g "
                "(tolerance %.3g): %s\n",
                generated.size(),
                args.temperature > 0 ? "drawn" : tokensDiffer ? "DIFFER" : "equal", worstError,
                args.tolerance, ok ? "PASS" : "FAIL");
    // The plan matching a reference that left its loop early means the
    // device took the same exits (the read-out's log-probs differ from the
    // last pass's).
    std::printf("check-reference: reference left the loop early in %zu of %zu calls\n",
                reference->earlyExits(), reference->calls());
    if (!ok)
      return 1;
  }

  if (args.stats) {
    kiln_session_stats_t stats;
    if (kiln_status_t status = kiln_session_stats(handles.session, &stats))
      return report(status);
    kiln_device_info_t device;
    if (kiln_status_t status = kiln_instance_device_info(handles.instance, &device))
      return report(status);
    std::fprintf(stderr,
                 "device: %s\ndispatches/token: %u\nbarriers/token: %u\nbytes/token: %llu\n"
                 "tokens: %llu\ncalls: %llu\nms/token: %.3f\n",
                 device.name, stats.dispatches_per_token, stats.barriers_per_token,
                 static_cast<unsigned long long>(stats.bytes_per_token),
                 static_cast<unsigned long long>(stats.tokens),
                 static_cast<unsigned long long>(stats.calls), stats.ms_per_token);
    // Prefill (the prompt, which also pays the device's warm-up on the first
    // call) and decode (generated tokens) apart.
    const double perDecode =
        stats.decode_tokens ? stats.decode_ms / static_cast<double>(stats.decode_tokens) : 0.0;
    std::fprintf(stderr, "prefill tokens/s: %.1f\ndecode ms/token: %.3f\nsubmits/token: %.3f\n"
                         "wall ms/token: %.3f\n",
                 stats.prefill_ms > 0 ? 1e3 * static_cast<double>(stats.prefill_tokens) /
                                            stats.prefill_ms
                                      : 0.0,
                 perDecode,
                 stats.decode_tokens ? static_cast<double>(stats.decode_calls) /
                                           static_cast<double>(stats.decode_tokens)
                                     : 0.0,
                 generated.size() > 1 ? decodeWallMs / static_cast<double>(generated.size() - 1)
                                      : 0.0);
    // Where a decode call's time goes: inside vkQueueSubmit, and on the GPU from
    // the program's first command to its last (the rest is launch and wake-up).
    if (stats.decode_tokens)
      std::fprintf(stderr, "decode submit ms/token: %.3f\n",
                   stats.decode_submit_ms / static_cast<double>(stats.decode_tokens));
    if (stats.decode_gpu_ms_per_call > 0)
      std::fprintf(stderr, "decode GPU ms/call: %.3f\n", stats.decode_gpu_ms_per_call);
  }
  if (args.profile) {
    size_t count = 0;
    if (kiln_status_t status = kiln_session_profile(handles.session, nullptr, 0, &count))
      return report(status);
    std::vector<kiln_dispatch_profile_t> entries(count);
    if (kiln_status_t status = kiln_session_profile(handles.session, entries.data(), count, &count))
      return report(status);
    // Measured GPU time beside the compiler's estimate (docs/fusion.md).
    std::fprintf(stderr, "profile (%s program, per call):\n  %-40s %12s %12s\n",
                 args.profilePrefill ? "prefill" : "decode", "dispatch", "measured us",
                 "estimate us");
    double measured = 0, estimated = 0;
    for (const auto &entry : entries) {
      double us = entry.calls ? 1e3 * entry.total_ms / static_cast<double>(entry.calls) : 0.0;
      measured += us;
      estimated += entry.estimated_us > 0 ? entry.estimated_us : 0;
      if (entry.estimated_us >= 0)
        std::fprintf(stderr, "  %-40s %12.3f %12.3f\n", entry.label, us, entry.estimated_us);
      else
        std::fprintf(stderr, "  %-40s %12.3f %12s\n", entry.label, us, "-");
    }
    std::fprintf(stderr, "  %-40s %12.3f %12.3f\n", "total", measured, estimated);
    kiln_session_stats_t stats;
    if (kiln_status_t status = kiln_session_stats(handles.session, &stats))
      return report(status);
    // The span counts barriers and idle gaps between dispatches; the sum does not.
    std::fprintf(stderr, "  %-40s %12.3f\n", "GPU span (first start to last end)",
                 1e3 * stats.gpu_span_ms_per_call);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Arguments args;
  if (!parseArguments(argc, argv, args))
    return 2;
  if (args.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (args.listDevices)
    return listDevices();
  return run(args);
}
