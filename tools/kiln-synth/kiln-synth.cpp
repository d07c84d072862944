//===- kiln-synth.cpp - Write deterministic synthetic weights -------------===//
//
// A thin CLI over kiln::io::writeSyntheticWeights: parse flags, load the
// config, write the file (atomically), report progress on stderr.
//
//===----------------------------------------------------------------------===//
#include "ProgressBar.h"

#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/SyntheticWeights.h"
#include "kiln/IO/WeightSpec.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <unistd.h>

using namespace kiln::io;

namespace {

const char *kUsage =
    "usage: kiln-synth --config C.json [--seed N] [--format f16|q8_2f]\n"
    "                  [--quiet] -o W.safetensors\n"
    "       kiln-synth --config C.json --count [--format f16|q8_2f]\n"
    "\n"
    "Writes deterministic synthetic weights for a Kiln model config: the\n"
    "same config, seed and format give the same bytes on every machine.\n"
    "\n"
    "  --config PATH   model config (docs/config.md)\n"
    "  --seed N        random seed, an unsigned integer (default 0)\n"
    "  --format F      f16 (default) or q8_2f (docs/weights.md)\n"
    "  -o PATH         output safetensors file, written atomically (Ctrl-C removes\n"
    "                  the partial file and exits 130)\n"
    "  --count         print parameter and byte counts, write nothing\n"
    "  --quiet         no progress on stderr (else a bar on a terminal, a line per\n"
    "                  10% of a file over 64 MiB otherwise)\n"
    "  --help          this text\n";

struct Options {
  std::string configPath;
  std::string outputPath;
  uint64_t seed = 0;
  WeightFormat format = WeightFormat::F16;
  bool count = false;
  bool quiet = false;
  bool help = false;
};

int fail(const std::string &message) {
  std::fprintf(stderr, "kiln-synth: error: %s\n", message.c_str());
  return 1;
}

bool parseSeed(const std::string &text, uint64_t &seed) {
  if (text.empty() || text.size() > 20)
    return false;
  for (char c : text)
    if (c < '0' || c > '9')
      return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0')
    return false;
  seed = value;
  return true;
}

/// Reads the flags; returns an error message or "".
std::string parseArguments(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    std::string value;
    bool hasInlineValue = false;
    if (argument.rfind("--", 0) == 0) {
      size_t equals = argument.find('=');
      if (equals != std::string::npos) {
        value = argument.substr(equals + 1);
        argument = argument.substr(0, equals);
        hasInlineValue = true;
      }
    }
    auto takeValue = [&](std::string &out) -> bool {
      if (hasInlineValue) {
        out = value;
        return true;
      }
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      return true;
    };
    auto needsValue = [&]() { return argument + " needs a value"; };

    if (argument == "--help" || argument == "-h") {
      options.help = true;
    } else if (argument == "--count") {
      options.count = true;
    } else if (argument == "--quiet") {
      options.quiet = true;
    } else if (argument == "--config") {
      if (!takeValue(options.configPath))
        return needsValue();
    } else if (argument == "-o" || argument == "--output") {
      if (!takeValue(options.outputPath))
        return needsValue();
    } else if (argument == "--seed") {
      std::string text;
      if (!takeValue(text))
        return needsValue();
      if (!parseSeed(text, options.seed))
        return "--seed '" + text + "' is not an unsigned 64-bit integer";
    } else if (argument == "--format") {
      std::string text;
      if (!takeValue(text))
        return needsValue();
      Expected<WeightFormat> format = parseWeightFormat(text);
      if (!format)
        return "--format: " + format.error().message();
      options.format = *format;
    } else {
      return "unknown argument '" + argument + "' (see --help)";
    }
  }
  return "";
}

/// Prints a line per 10% of bytes written. Small models (under 64 MiB)
/// finish too fast to need it and print nothing.
class ProgressPrinter {
public:
  void operator()(const Progress &progress) {
    if (progress.bytesTotal < kQuietBelowBytes)
      return;
    int step = static_cast<int>(10.0 * static_cast<double>(progress.bytesDone) /
                                static_cast<double>(progress.bytesTotal));
    if (step == lastStep_)
      return;
    lastStep_ = step;
    std::fprintf(stderr, "kiln-synth: %3d%%  %zu/%zu tensors  %.0f/%.0f MiB\n",
                 step * 10, progress.tensorsDone, progress.tensorsTotal,
                 static_cast<double>(progress.bytesDone) / 1048576.0,
                 static_cast<double>(progress.bytesTotal) / 1048576.0);
    std::fflush(stderr);
  }

private:
  static constexpr uint64_t kQuietBelowBytes = 64ull << 20;
  int lastStep_ = 0;
};

/// Set by SIGINT/SIGTERM: the write stops after the tensor in hand and its
/// temporary file is removed (default handling would leave it behind).
volatile std::sig_atomic_t gInterrupted = 0;

void onInterrupt(int) { gInterrupted = 1; }

} // namespace

static int run(int argc, char **argv) {
  Options options;
  if (std::string error = parseArguments(argc, argv, options); !error.empty())
    return fail(error);
  if (options.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (options.configPath.empty())
    return fail("--config is required (see --help)");
  if (options.outputPath.empty() && !options.count)
    return fail("-o is required (see --help)");

  Expected<ModelConfig> config = loadModelConfig(options.configPath);
  if (!config)
    return fail(config.error().message());

  const int64_t parameters = parameterCount(*config);
  const uint64_t bytes = weightBytes(*config, options.format);
  if (options.count) {
    std::printf("parameters: %lld\n", static_cast<long long>(parameters));
    std::printf("bytes(%s): %llu\n", weightFormatName(options.format),
                static_cast<unsigned long long>(bytes));
    std::printf("tensors(%s): %zu\n", weightFormatName(options.format),
                expectedTensors(*config, options.format).size());
    return 0;
  }

  // On a terminal a bar with bytes and rate; else a line per 10% (logs); none
  // with --quiet.
  ProgressPrinter printer;
  kiln::tools::ProgressBar bar("kiln-synth: " + options.outputPath);
  const bool quiet = options.quiet, terminal = isatty(STDERR_FILENO) != 0;
  ProgressFn progress = [&printer, &bar, quiet, terminal](Progress &p) {
    if (!quiet && terminal)
      bar.update(p.bytesDone, p.bytesTotal);
    else if (!quiet)
      printer(p);
    p.cancel = gInterrupted != 0;
  };
  std::signal(SIGINT, onInterrupt);
  std::signal(SIGTERM, onInterrupt);
  Status status = writeSyntheticWeights(*config, options.seed, options.format,
                                        options.outputPath, progress);
  if (!status) {
    fail(status.error().message());
    // The shell's convention for a run ended by a signal.
    return gInterrupted ? 128 + SIGINT : 1;
  }
  std::printf("kiln-synth: wrote %s (%s, %s, seed %llu, %lld parameters, "
              "%llu data bytes)\n",
              options.outputPath.c_str(), modelFamilyName(config->family),
              weightFormatName(options.format),
              static_cast<unsigned long long>(options.seed),
              static_cast<long long>(parameters),
              static_cast<unsigned long long>(bytes));
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
