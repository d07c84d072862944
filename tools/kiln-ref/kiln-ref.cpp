//===- kiln-ref.cpp - Generate tokens with the CPU reference --------------===//
//
// kiln-ref --config C.json --weights W.safetensors --prompt 1,2,3
//          [--max-new N] [--greedy | --temperature T --top-p P --seed S]
//          [--head-top-p P | --head-gate G] [--print-logprobs] [--print-experts]
//
// A thin command line over lib/Reference: it loads the config and weights,
// feeds the prompt (Embryo: one step per token; Dory: one call with every
// prompt row, then one-row decode calls) and samples new tokens. Only main()
// prints and picks the exit code.
//
//===----------------------------------------------------------------------===//

#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/Safetensors.h"
#include "kiln/Reference/DorySession.h"
#include "kiln/Reference/EmbryoSession.h"
#include "kiln/Reference/Sampler.h"

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <new>
#include <string>
#include <vector>

namespace {

const char *kUsage =
    "usage: kiln-ref --config C.json --weights W.safetensors --prompt 1,2,3\n"
    "                [--max-new N] [--greedy | --temperature T --top-p P "
    "--seed S]\n"
    "                [--head-top-p P | --head-gate G] [--print-logprobs]\n"
    "                [--print-experts] [--rows-per-call K]\n"
    "\n"
    "Runs the CPU reference of the config's family on the prompt and prints\n"
    "the new tokens, comma-separated on one line.\n"
    "\n"
    "  --config PATH       model config JSON (docs/config.md)\n"
    "  --weights PATH      safetensors weights, f16 or q8_2f (docs/weights.md)\n"
    "  --prompt LIST       comma-separated token ids, at least one\n"
    "  --max-new N         tokens to generate (default 64)\n"
    "  --greedy            argmax decoding (the default)\n"
    "  --temperature T     sample at temperature T > 0 (turns off --greedy)\n"
    "  --top-p P           nucleus mass in (0, 1] when sampling (default 1)\n"
    "  --seed S            sampler seed, an unsigned integer (default 0)\n"
    "  --head-top-p P      Embryo only: gate the hierarchical head from P\n"
    "                      (clusters outside the top-P set are dropped)\n"
    "  --head-gate G       Embryo only: a fixed head gate, a log-probability\n"
    "                      (clusters whose log-probability is below G are\n"
    "                      dropped: their tokens get -inf); the default -inf\n"
    "                      keeps every cluster; kiln-run's --head-gate\n"
    "                      applies the same gate on the device\n"
    "  --print-logprobs    print one line per new token instead:\n"
    "                      <token> <its log-probability>\n"
    "  --print-experts     Embryo with MoE: then one line per MoE layer with\n"
    "                      how often each expert was routed to over all steps\n"
    "                      and the closest call (smallest score gap to the\n"
    "                      runner-up or distance of an error to its shell)\n"
    "  --rows-per-call K   Dory: feed the prompt K rows a call (kiln-run feeds a\n"
    "                      plan without @prefill one row a call: K = 1 gives\n"
    "                      the same cut); default 0, the whole prompt in one\n"
    "                      call. Embryo runs one row a call either way\n"
    "  --help              this text\n";

struct Options {
  std::string configPath, weightsPath;
  std::vector<int> prompt;
  long maxNew = 64;
  long rowsPerCall = 0; // Dory: prompt rows a call; 0 = the whole prompt
  kiln::ref::SamplingOptions sampling;
  uint64_t seed = 0;
  std::optional<double> headTopP;
  std::optional<double> headGate;
  bool printLogProbs = false;
  bool printExperts = false;
  bool help = false;
};

int fail(const std::string &message) {
  std::fprintf(stderr, "kiln-ref: error: %s\n", message.c_str());
  return 1;
}

bool parseLong(const std::string &text, long &out) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtol(text.c_str(), &end, 10);
  return errno == 0 && *end == '\0';
}

bool parseDouble(const std::string &text, double &out) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return errno == 0 && *end == '\0' && std::isfinite(out);
}

bool parseUnsigned(const std::string &text, uint64_t &out) {
  if (text.empty() || text[0] == '-')
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 10);
  return errno == 0 && *end == '\0';
}

/// The smallest change of one router input that flips `route`: the gap from
/// the top score to the runner-up, or an error's distance to its shell.
double closestCall(const kiln::ref::RouteDecision &route,
                   const std::vector<float> &shells) {
  double closest = std::numeric_limits<double>::infinity();
  const double best = route.scores[route.expert];
  for (size_t e = 0; e < route.scores.size(); ++e) {
    if (e != route.expert && std::isfinite(route.scores[e]) && std::isfinite(best))
      closest = std::min(closest, best - route.scores[e]);
    if (!shells.empty() && std::isfinite(shells[e]))
      closest = std::min(closest, std::fabs(static_cast<double>(route.errors[e]) - shells[e]));
  }
  return closest;
}

// Returns an error message, or empty on success.
std::string parsePrompt(const std::string &text, std::vector<int> &out) {
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    long value = 0;
    if (!parseLong(item, value) || value < 0 || value > 0x7fffffff)
      return "--prompt: '" + item + "' is not a token id (a non-negative "
             "integer); expected e.g. 1,2,3";
    out.push_back(static_cast<int>(value));
    if (comma == std::string::npos)
      return "";
    start = comma + 1;
  }
}

std::string parseOptions(int argc, char **argv, Options &o) {
  bool sawTemperature = false, sawGreedy = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&](std::string &out) -> bool {
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      return true;
    };
    std::string text;
    if (flag == "--help" || flag == "-h") {
      o.help = true;
    } else if (flag == "--greedy") {
      sawGreedy = true;
    } else if (flag == "--print-logprobs") {
      o.printLogProbs = true;
    } else if (flag == "--print-experts") {
      o.printExperts = true;
    } else if (flag == "--config" || flag == "--weights" ||
               flag == "--prompt" || flag == "--max-new" ||
               flag == "--temperature" || flag == "--top-p" ||
               flag == "--seed" || flag == "--head-top-p" ||
               flag == "--head-gate" || flag == "--rows-per-call") {
      if (!value(text))
        return flag + " needs a value";
      double number = 0;
      if (flag == "--config") {
        o.configPath = text;
      } else if (flag == "--weights") {
        o.weightsPath = text;
      } else if (flag == "--prompt") {
        if (std::string e = parsePrompt(text, o.prompt); !e.empty())
          return e;
      } else if (flag == "--rows-per-call") {
        if (!parseLong(text, o.rowsPerCall) || o.rowsPerCall < 0)
          return "--rows-per-call: '" + text + "' is not a non-negative integer";
      } else if (flag == "--max-new") {
        if (!parseLong(text, o.maxNew) || o.maxNew < 0)
          return "--max-new: '" + text + "' is not a non-negative integer";
      } else if (flag == "--temperature") {
        if (!parseDouble(text, number) || number <= 0)
          return "--temperature: '" + text + "' must be a number > 0";
        o.sampling.temperature = number;
        sawTemperature = true;
      } else if (flag == "--top-p") {
        if (!parseDouble(text, number) || number <= 0 || number > 1)
          return "--top-p: '" + text + "' must be a number in (0, 1]";
        o.sampling.topP = number;
      } else if (flag == "--seed") {
        if (!parseUnsigned(text, o.seed))
          return "--seed: '" + text + "' is not an unsigned integer";
      } else if (flag == "--head-top-p") {
        if (!parseDouble(text, number) || number <= 0 || number > 1)
          return "--head-top-p: '" + text + "' must be a number in (0, 1]";
        o.headTopP = number;
      } else if (flag == "--head-gate") {
        if (!parseDouble(text, number))
          return "--head-gate: '" + text + "' must be a finite number (a "
                 "log-probability, e.g. -1.5)";
        o.headGate = number;
      }
    } else {
      return "unknown option '" + flag + "' (see --help)";
    }
  }
  if (o.help)
    return "";
  if (sawGreedy && sawTemperature)
    return "--greedy and --temperature exclude each other";
  o.sampling.greedy = !sawTemperature;
  if (o.headTopP && o.headGate)
    return "--head-top-p and --head-gate exclude each other";
  if (o.configPath.empty())
    return "--config is required (see --help)";
  if (o.weightsPath.empty())
    return "--weights is required (see --help)";
  if (o.prompt.empty())
    return "--prompt is required: at least one token id";
  return "";
}

} // namespace

static int run(int argc, char **argv) {
  Options options;
  if (std::string e = parseOptions(argc, argv, options); !e.empty())
    return fail(e);
  if (options.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  auto config = kiln::io::loadModelConfig(options.configPath);
  if (!config)
    return fail(config.error().message());
  auto file = kiln::io::SafetensorsFile::open(options.weightsPath);
  if (!file)
    return fail(file.error().message());
  if (options.headTopP && !config->isEmbryo())
    return fail("--head-top-p applies to Embryo models only");
  if (options.headGate && !config->isEmbryo())
    return fail("--head-gate applies to Embryo models only");
  if (options.printExperts && (!config->isEmbryo() || !config->embryo.moe))
    return fail("--print-experts applies to Embryo models with an MoE only");
  const size_t total = options.prompt.size() + static_cast<size_t>(options.maxNew);
  if (total > static_cast<size_t>(config->maxPosition))
    return fail("prompt (" + std::to_string(options.prompt.size()) +
                ") + --max-new (" + std::to_string(options.maxNew) +
                ") exceeds max_position (" +
                std::to_string(config->maxPosition) + ")");

  // One function per family behind a common "next log-probs" interface.
  std::unique_ptr<kiln::ref::EmbryoSession> embryo;
  std::unique_ptr<kiln::ref::DorySession> dory;
  if (config->isEmbryo()) {
    auto model = kiln::ref::loadEmbryoModel(*config, *file);
    if (!model)
      return fail(model.error().message());
    embryo = std::make_unique<kiln::ref::EmbryoSession>(
        std::make_shared<const kiln::ref::EmbryoModel>(std::move(*model)));
    if (options.headTopP)
      embryo->setHeadTopP(static_cast<float>(*options.headTopP));
    if (options.headGate)
      embryo->setHeadGate(static_cast<float>(*options.headGate));
  } else {
    auto model = kiln::ref::loadDoryModel(*config, *file);
    if (!model)
      return fail(model.error().message());
    dory = std::make_unique<kiln::ref::DorySession>(
        std::make_shared<const kiln::ref::DoryModel>(std::move(*model)));
  }
  std::vector<std::vector<int>> routed;
  std::vector<double> closest;
  auto moeShells = [&](size_t k) -> const std::vector<float> & {
    const size_t layer = static_cast<size_t>(config->embryo.moe->layers[k]);
    return embryo->model().layers[layer].moe.router.shells;
  };
  auto run = [&](const std::vector<int> &tokens)
      -> kiln::io::Expected<std::vector<float>> {
    if (dory) {
      // Dory depends on the cut of a prompt into calls (docs/semantics.md).
      const size_t rows = options.rowsPerCall > 0 ? static_cast<size_t>(options.rowsPerCall)
                                                  : tokens.size();
      kiln::io::Expected<std::vector<float>> last = kiln::io::Error("empty step");
      for (size_t start = 0; start < tokens.size(); start += rows) {
        std::vector<int> call(tokens.begin() + static_cast<long>(start),
                              tokens.begin() + static_cast<long>(std::min(tokens.size(), start + rows)));
        last = dory->forward(call);
        if (!last)
          return last;
      }
      return last;
    }
    kiln::io::Expected<std::vector<float>> last =
        kiln::io::Error("empty step");
    for (int token : tokens) {
      last = embryo->step(token);
      if (!last)
        return last;
      // Per MoE layer (in layer order), per expert: steps routed there,
      // and the closest call (how far a device's rounding is from flipping
      // a decision).
      const std::vector<size_t> &experts = embryo->lastExperts();
      routed.resize(experts.size());
      closest.resize(experts.size(), std::numeric_limits<double>::infinity());
      for (size_t k = 0; k < experts.size(); ++k) {
        routed[k].resize(static_cast<size_t>(config->embryo.moe->numExperts));
        ++routed[k][experts[k]];
        closest[k] = std::min(closest[k], closestCall(embryo->lastRoutes()[k],
                                                      moeShells(k)));
      }
    }
    return last;
  };

  kiln::ref::SplitMix64 rng(options.seed);
  auto logProbs = run(options.prompt);
  std::vector<int> generated;
  for (long n = 0; n < options.maxNew; ++n) {
    if (!logProbs)
      return fail(logProbs.error().message());
    // A NaN (or +Inf) log-probability is no distribution to sample from: say so
    // rather than print a token (non-finite weights end up here). -Inf is a token
    // the gated head dropped.
    for (size_t v = 0; v < logProbs->size(); ++v)
      if (std::isnan((*logProbs)[v]) || (*logProbs)[v] == INFINITY)
        return fail("step " + std::to_string(n) + ": the log-probability of token " +
                    std::to_string(v) + " is " +
                    (std::isnan((*logProbs)[v]) ? "NaN" : "+Inf") +
                    " (are the weights finite?)");
    const int token = kiln::ref::sampleToken(*logProbs, options.sampling, rng);
    if (options.printLogProbs)
      std::printf("%d %.9g\n", token,
                  static_cast<double>((*logProbs)[static_cast<size_t>(token)]));
    generated.push_back(token);
    if (n + 1 < options.maxNew)
      logProbs = run({token});
  }
  if (!options.printLogProbs) {
    for (size_t i = 0; i < generated.size(); ++i)
      std::printf("%s%d", i ? "," : "", generated[i]);
    std::printf("\n");
  }
  if (options.printExperts) {
    // e.g. "experts: layer 1: 0:12 1:30 2:0 3:27 (distinct 3)"
    for (size_t k = 0; k < routed.size(); ++k) {
      std::printf("experts: layer %lld:",
                  static_cast<long long>(config->embryo.moe->layers[k]));
      int distinct = 0;
      for (size_t e = 0; e < routed[k].size(); ++e) {
        std::printf(" %zu:%d", e, routed[k][e]);
        distinct += routed[k][e] > 0;
      }
      std::printf(" (distinct %d) closest call %.3g\n", distinct, closest[k]);
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  // Sizes come from an untrusted config: an allocation the machine cannot give is an
  // error with a message, not an abort.
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    return fail("out of memory (the config's sizes need more than this machine can allocate)");
  }
}
