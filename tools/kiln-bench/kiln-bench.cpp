//===- kiln-bench.cpp - Prompt and generation throughput of plans ---------===//
//
// In llama-bench's style: for each plan, R repetitions of a P-token prompt
// (test ppP: kiln_session_prefill) and of N generated tokens (test tgN: greedy
// kiln_session_generate, many tokens a submission where the plan allows),
// each from a reset session after one warm-up of each; a table of tokens/s
// (mean ± sd), the bytes a token binds per second and their share of the
// device's streaming read bandwidth when given. Only the C API.
//
//===----------------------------------------------------------------------===//
#include "BenchSupport.h"
#include "KernelsMode.h"

#include "kiln/runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char *kUsage =
    "usage: kiln-bench PLAN.kplan... --weights W.safetensors... [options]\n"
    "       kiln-bench kernels PLAN.kplan --weights W.safetensors [options]   (each\n"
    "       kernel alone, caches flushed: kiln-bench kernels --help)\n"
    "\n"
    "Prompt (ppP) and generation (tgN) throughput of each plan, llama-bench style: R\n"
    "repetitions each, from a reset session, after one warm-up of each.\n"
    "\n"
    "options:\n"
    "  --weights W           weights for the plans: one for all, or one per plan in order\n"
    "  -p, --prompt-tokens P prompt length of the pp test (default 512; 0 = skip)\n"
    "  -n, --gen-tokens N    tokens of the tg test (default 128; 0 = skip)\n"
    "  -r, --repetitions R   repetitions of each test (default 5)\n"
    "  -o, --output F        md (default), csv or json\n"
    "  --tokens-per-submit K greedy tokens one submission may run (default 16)\n"
    "  --positions A,B,...   also run the tg test after prompts of A, B, ... tokens (test\n"
    "                        tgN@A: the cost of a token at that position; the prompt is\n"
    "                        fed first, untimed)\n"
    "  --seek                reach each --positions position by kiln_session_seek over\n"
    "                        zeroed state instead of feeding the prompt: a 30,000-token\n"
    "                        position in one call (the kernels read a full window, of\n"
    "                        zeros; the tokens are not the model's)\n"
    "  --plot FILE.svg       draw ms/token of the tg tests against the position (an SVG,\n"
    "                        one line per plan; written whole or not at all)\n"
    "  --read-bandwidth GBPS the device's streaming read bandwidth (e.g. vkprobe's), for\n"
    "                        the share column; without it the column is empty\n"
    "  --device N|NAME       device index or name substring (else env KILN_DEVICE)\n"
    "  -h, --help            this text\n"
    "\n"
    "GB/s is the bytes a token binds (kiln_session_stats' bytes_per_token: whole bound\n"
    "ranges, an upper bound of what it reads) times tokens/s; tg only.\n";

struct Arguments {
  std::vector<std::string> plans, weights;
  std::vector<long> positions; // tg after prompts of these lengths (besides the plain tg)
  long promptTokens = 512, genTokens = 128, repetitions = 5, tokensPerSubmit = 16;
  double readBandwidth = 0;
  std::string output = "md", device, plot;
  bool help = false;
  bool seek = false;
};

using kiln::bench::fail;
using kiln::bench::parseLong;
using kiln::bench::parsePositive;

bool parseArguments(int argc, char **argv, Arguments &args) {
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
      args.weights.push_back(text);
    } else if (flag == "-p" || flag == "--prompt-tokens") {
      if (!value() || !parseLong(flag, text, 0, 1 << 20, args.promptTokens)) return false;
    } else if (flag == "-n" || flag == "--gen-tokens") {
      if (!value() || !parseLong(flag, text, 0, 1 << 20, args.genTokens)) return false;
    } else if (flag == "-r" || flag == "--repetitions") {
      if (!value() || !parseLong(flag, text, 1, 1000, args.repetitions)) return false;
    } else if (flag == "--tokens-per-submit") {
      if (!value() || !parseLong(flag, text, 1, 4096, args.tokensPerSubmit)) return false;
    } else if (flag == "-o" || flag == "--output") {
      if (!value()) return false;
      args.output = text;
      if (args.output != "md" && args.output != "csv" && args.output != "json")
        return fail("--output: expected md, csv or json, got '" + args.output + "'");
    } else if (flag == "--seek") {
      args.seek = true;
    } else if (flag == "--positions") {
      if (!value()) return false;
      std::string list = text;
      size_t start = 0;
      while (true) {
        size_t comma = list.find(',', start);
        std::string piece = list.substr(start, comma == std::string::npos ? std::string::npos
                                                                          : comma - start);
        long position;
        if (!parseLong(flag, piece.c_str(), 1, 1 << 24, position)) return false;
        args.positions.push_back(position);
        if (comma == std::string::npos)
          break;
        start = comma + 1;
      }
    } else if (flag == "--plot") {
      if (!value()) return false;
      args.plot = text;
      if (args.plot.size() < 4 || args.plot.compare(args.plot.size() - 4, 4, ".svg") != 0)
        return fail("--plot: '" + args.plot + "' must end in .svg");
    } else if (flag == "--read-bandwidth") {
      if (!value() || !parsePositive(flag, text, args.readBandwidth)) return false;
    } else if (flag == "--device") {
      if (!value()) return false;
      args.device = text;
    } else if (!flag.empty() && flag[0] == '-') {
      return fail("unknown option '" + flag + "' (see --help)");
    } else {
      args.plans.push_back(flag);
    }
  }
  if (args.help)
    return true;
  if (args.plans.empty())
    return fail("no plan given (see --help)");
  if (args.weights.empty())
    return fail("--weights is required");
  if (args.weights.size() != 1 && args.weights.size() != args.plans.size())
    return fail("--weights: give one file for all plans or one per plan (" +
                std::to_string(args.plans.size()) + " plans, " +
                std::to_string(args.weights.size()) + " weights)");
  if (args.promptTokens == 0 && args.genTokens == 0)
    return fail("-p 0 and -n 0 leave nothing to measure");
  return true;
}

struct Row {
  std::string model, device, test;
  long position = 0; // prompt fed before a tg test
  uint64_t bytesPerToken = 0;
  uint32_t dispatches = 0;
  double mean = 0, sd = 0; // tokens/s
  bool generation = false;
};

using Bench = kiln::bench::Handles;

using Clock = std::chrono::steady_clock;

// One timed run (a reset session first); tokens/s. A generation run first feeds
// a prompt of `at` tokens (at least one), untimed; with `seek`, it seeks to
// position `at` and feeds one token there.
bool timeOnce(Bench &bench, bool generation, long tokens, long at, bool seek, uint32_t vocab,
              double &perSecond) {
  if (!bench.check(kiln_session_reset(bench.session), "reset"))
    return false;
  const bool seekTo = generation && seek && at > 0;
  if (seekTo && !bench.check(kiln_session_seek(bench.session, static_cast<uint32_t>(at)), "seek"))
    return false;
  std::vector<int32_t> prompt(
      static_cast<size_t>(generation ? (seekTo ? 1 : std::max(1l, at)) : tokens));
  for (size_t i = 0; i < prompt.size(); ++i)
    prompt[i] = static_cast<int32_t>((i + 1) % vocab);
  kiln_step_result_t first{};
  auto start = Clock::now();
  if (!bench.check(kiln_session_prefill(bench.session, prompt.data(), prompt.size(), &first),
                   "prefill"))
    return false;
  if (generation) {
    start = Clock::now();
    std::vector<kiln_step_result_t> picks(static_cast<size_t>(tokens));
    if (!bench.check(kiln_session_generate(bench.session, first.token, picks.size(), picks.data()),
                     "generate"))
      return false;
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  perSecond = seconds > 0 ? static_cast<double>(tokens) / seconds : 0.0;
  return true;
}

bool benchPlan(const Arguments &args, size_t index, std::vector<Row> &rows) {
  Bench bench;
  const std::string &planPath = args.plans[index];
  const std::string &weights = args.weights[args.weights.size() == 1 ? 0 : index];
  if (!bench.load(args.device, planPath))
    return false;
  kiln_session_options_t options;
  kiln_session_options_init(&options);
  options.weights_path = weights.c_str();
  options.tokens_per_submit = static_cast<uint32_t>(args.tokensPerSubmit);
  if (!bench.check(kiln_session_create(bench.plan, &options, &bench.session),
                   "session for '" + planPath + "'"))
    return false;
  kiln_plan_info_t info;
  kiln_device_info_t device;
  kiln_session_stats_t stats;
  if (!bench.check(kiln_plan_info(bench.plan, &info), "plan info") ||
      !bench.check(kiln_instance_device_info(bench.instance, &device), "device info") ||
      !bench.check(kiln_session_stats(bench.session, &stats), "stats"))
    return false;
  std::string model = planPath.substr(planPath.find_last_of('/') + 1);
  // (generation, prompt length before it): pp, tg, then tg after each position.
  std::vector<std::pair<bool, long>> tests;
  if (args.promptTokens > 0)
    tests.push_back({false, 0});
  if (args.genTokens > 0) {
    tests.push_back({true, 0});
    for (long at : args.positions)
      tests.push_back({true, at});
  }
  for (auto [generation, at] : tests) {
    const long tokens = generation ? args.genTokens : args.promptTokens;
    if (static_cast<uint64_t>(tokens) + static_cast<uint64_t>(at) + 1 > info.max_position)
      return fail("'" + planPath + "': " + (generation ? "-n " : "-p ") + std::to_string(tokens) +
                  (at ? " after " + std::to_string(at) + " positions" : std::string()) +
                  " passes the plan's max_position " + std::to_string(info.max_position));
    double ignored;
    if (!timeOnce(bench, generation, tokens, at, args.seek, info.vocab_size, ignored)) // warm-up
      return false;
    std::vector<double> samples;
    for (long r = 0; r < args.repetitions; ++r) {
      double perSecond;
      if (!timeOnce(bench, generation, tokens, at, args.seek, info.vocab_size, perSecond))
        return false;
      samples.push_back(perSecond);
    }
    Row row;
    row.model = model;
    row.device = device.name;
    row.test = (generation ? "tg" : "pp") + std::to_string(tokens) +
               (at ? "@" + std::to_string(at) : std::string());
    row.bytesPerToken = stats.bytes_per_token;
    row.dispatches = stats.dispatches_per_token;
    row.generation = generation;
    row.position = at;
    for (double s : samples)
      row.mean += s / static_cast<double>(samples.size());
    for (double s : samples)
      row.sd += (s - row.mean) * (s - row.mean);
    row.sd = samples.size() > 1 ? std::sqrt(row.sd / static_cast<double>(samples.size() - 1)) : 0;
    rows.push_back(row);
  }
  return true;
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

void print(const Arguments &args, const std::vector<Row> &rows) {
  auto gbps = [](const Row &r) { return r.generation ? r.mean * r.bytesPerToken / 1e9 : 0.0; };
  auto share = [&](const Row &r) {
    return r.generation && args.readBandwidth > 0 ? fixed(100 * gbps(r) / args.readBandwidth, 1)
                                                  : std::string();
  };
  if (args.output == "json") {
    std::printf("[\n");
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row &r = rows[i];
      std::printf("  {\"model\": \"%s\", \"device\": \"%s\", \"test\": \"%s\", "
                  "\"bytes_per_token\": %llu, \"dispatches_per_token\": %u, "
                  "\"tokens_per_second\": %.3f, \"sd\": %.3f, \"gb_per_second\": %s, "
                  "\"bandwidth_share_percent\": %s}%s\n",
                  r.model.c_str(), r.device.c_str(), r.test.c_str(),
                  static_cast<unsigned long long>(r.bytesPerToken), r.dispatches, r.mean, r.sd,
                  r.generation ? fixed(gbps(r), 2).c_str() : "null",
                  share(r).empty() ? "null" : share(r).c_str(), i + 1 < rows.size() ? "," : "");
    }
    std::printf("]\n");
    return;
  }
  if (args.output == "csv") {
    std::printf("model,device,test,bytes_per_token,dispatches_per_token,tokens_per_second,sd,"
                "gb_per_second,bandwidth_share_percent\n");
    for (const Row &r : rows)
      std::printf("%s,\"%s\",%s,%llu,%u,%.3f,%.3f,%s,%s\n", r.model.c_str(), r.device.c_str(),
                  r.test.c_str(), static_cast<unsigned long long>(r.bytesPerToken), r.dispatches,
                  r.mean, r.sd, r.generation ? fixed(gbps(r), 2).c_str() : "", share(r).c_str());
    return;
  }
  std::printf("| model | device | test | MB/token | dispatches/token | t/s | GB/s | %% of read BW |\n");
  std::printf("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
  for (const Row &r : rows)
    std::printf("| %s | %s | %s | %.1f | %u | %.2f ± %.2f | %s | %s |\n", r.model.c_str(),
                r.device.c_str(), r.test.c_str(), r.bytesPerToken / 1e6, r.dispatches, r.mean,
                r.sd, r.generation ? fixed(gbps(r), 2).c_str() : "", share(r).c_str());
}

std::string escapeXml(const std::string &text) {
  std::string out;
  for (char c : text)
    out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return out;
}

/// ms/token of each plan's tg tests against the position, as a hand-made SVG
/// (no plotting library needed), written to a temporary file and renamed.
bool writePlot(const std::string &path, const std::vector<Row> &rows) {
  std::vector<std::string> models;
  double maxPosition = 1, maxMs = 0;
  for (const Row &r : rows) {
    if (!r.generation || r.mean <= 0)
      continue;
    if (std::find(models.begin(), models.end(), r.model) == models.end())
      models.push_back(r.model);
    maxPosition = std::max(maxPosition, static_cast<double>(r.position));
    maxMs = std::max(maxMs, 1e3 / r.mean);
  }
  if (models.empty())
    return fail("--plot: no tg test to draw (-n 0?)");
  const double left = 70, right = 610, top = 30, bottom = 330;
  auto x = [&](double position) { return left + (right - left) * position / maxPosition; };
  auto y = [&](double ms) { return bottom - (bottom - top) * ms / (maxMs * 1.1); };
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"380\" "
                    "font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"800\" height=\"380\" fill=\"white\"/>\n";
  svg += "<line x1=\"70\" y1=\"330\" x2=\"610\" y2=\"330\" stroke=\"black\"/>\n"
         "<line x1=\"70\" y1=\"30\" x2=\"70\" y2=\"330\" stroke=\"black\"/>\n";
  for (int tick = 0; tick <= 4; ++tick) {
    double position = maxPosition * tick / 4, ms = maxMs * 1.1 * tick / 4;
    svg += "<text x=\"" + fixed(x(position), 1) + "\" y=\"348\" text-anchor=\"middle\">" +
           fixed(position, 0) + "</text>\n";
    svg += "<text x=\"64\" y=\"" + fixed(y(ms) + 4, 1) + "\" text-anchor=\"end\">" +
           fixed(ms, 2) + "</text>\n";
  }
  svg += "<text x=\"340\" y=\"372\" text-anchor=\"middle\">position (tokens before)</text>\n"
         "<text x=\"16\" y=\"180\" transform=\"rotate(-90 16 180)\" "
         "text-anchor=\"middle\">ms/token</text>\n";
  const char *colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
  for (size_t m = 0; m < models.size(); ++m) {
    std::vector<std::pair<double, double>> points;
    for (const Row &r : rows)
      if (r.generation && r.model == models[m] && r.mean > 0)
        points.push_back({static_cast<double>(r.position), 1e3 / r.mean});
    std::sort(points.begin(), points.end());
    std::string colour = colours[m % 6], line;
    for (auto [position, ms] : points) {
      line += fixed(x(position), 1) + "," + fixed(y(ms), 1) + " ";
      svg += "<circle cx=\"" + fixed(x(position), 1) + "\" cy=\"" + fixed(y(ms), 1) +
             "\" r=\"3\" fill=\"" + colour + "\"/>\n";
    }
    svg += "<polyline fill=\"none\" stroke=\"" + colour + "\" points=\"" + line + "\"/>\n";
    svg += "<text x=\"620\" y=\"" + std::to_string(40 + 18 * m) + "\" fill=\"" + colour +
           "\">" + escapeXml(models[m]) + "</text>\n";
  }
  svg += "</svg>\n";
  const std::string temporary = path + ".tmp";
  std::FILE *file = std::fopen(temporary.c_str(), "wb");
  if (!file)
    return fail("--plot: cannot write '" + temporary + "'");
  const bool written = std::fwrite(svg.data(), 1, svg.size(), file) == svg.size();
  if (std::fclose(file) != 0 || !written || std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return fail("--plot: cannot write '" + path + "'");
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "kernels")
    return runKernelsMode(argc - 1, argv + 1);
  Arguments args;
  if (!parseArguments(argc, argv, args))
    return 2;
  if (args.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::vector<Row> rows;
  for (size_t i = 0; i < args.plans.size(); ++i)
    if (!benchPlan(args, i, rows))
      return 1;
  print(args, rows);
  if (!args.plot.empty() && !writePlot(args.plot, rows))
    return 1;
  return 0;
}
