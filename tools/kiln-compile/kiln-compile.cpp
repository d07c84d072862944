//===- kiln-compile.cpp - Model config -> .kplan --------------------------===//
//
// kiln-compile CONFIG.json --weight-format f16|q8_2f -o model.kplan
//              [--target vulkan|metal|all] [--emit=mlir|stages|gpu|spirv|msl|plan-json]
//              [--target-file T.json]
// kiln-compile --from-stages STAGES.mlir ...   (a hand-written stage-level module)
//
// Thin: parses options, imports, runs buildKilnPipeline (lib/Pipeline), hands the
// GPU-level module to Target/Plan. Only main() prints errors and picks the exit code.
//
//===----------------------------------------------------------------------===//
#include "kiln/Conversion/Passes.h"
#include "kiln/Cost/NativeTarget.h"
#include "kiln/Cost/TargetDesc.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"
#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/WeightSpec.h"
#include "kiln/Import/ConfigImporter.h"
#include "kiln/Pipeline/Pipeline.h"
#include "kiln/Dialect/Stage/Transforms/TargetSelection.h"
#include "kiln/Dialect/Stage/Transforms/FusionReport.h"
#include "kiln/Target/Plan/PlanKernels.h"
#include "kiln/Target/Plan/AtomicFile.h"
#include "kiln/Target/Plan/PlanJson.h"
#include "kiln/Target/Plan/PlanWriter.h"

#include <cstdio>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory kilnCategory("kiln-compile options");
static cl::opt<std::string> configPath(cl::Positional, cl::desc("<config.json>"),
                                       cl::init(""), cl::cat(kilnCategory));
static cl::opt<std::string> fromStages(
    "from-stages", cl::desc("compile a stage-level module (.mlir) instead of a config"),
    cl::value_desc("file"), cl::init(""), cl::cat(kilnCategory));
static cl::opt<std::string> weightFormat("weight-format", cl::desc("f16 | q8_2f"),
                                         cl::init(""), cl::cat(kilnCategory));
static cl::opt<std::string> outputPath("o", cl::desc("output file (the plan, or what --emit names)"),
                                       cl::value_desc("file"), cl::init(""),
                                       cl::cat(kilnCategory));
static cl::opt<std::string> target("target", cl::desc("vulkan | metal | all (default vulkan)"),
                                   cl::init("vulkan"), cl::cat(kilnCategory));
static cl::opt<std::string>
    emit("emit",
         cl::desc("what to write instead of the plan: mlir | stages | gpu | spirv (one .spv "
                  "per kernel into the -o folder) | msl | plan-json"),
         cl::init(""), cl::cat(kilnCategory));
static cl::opt<std::string> targetFile("target-file",
                                       cl::desc("target descriptor JSON (targets/*.json)"),
                                       cl::value_desc("file"), cl::init(""),
                                       cl::cat(kilnCategory));
static cl::opt<bool> allBarriers("all-barriers",
                                 cl::desc("debugging: a barrier before every dispatch"),
                                 cl::init(false), cl::cat(kilnCategory));
static cl::opt<bool> everyCall(
    "every-dispatch-every-call",
    cl::desc("debugging: every dispatch runs in every call, Dory's landmark seals too (which "
             "do nothing after a session's first call, and by default run in it alone)"),
    cl::init(false), cl::cat(kilnCategory));
static cl::opt<std::string> fusion("fusion",
                                   cl::desc("cost (default: fuse where the cost model says it "
                                            "pays) | none (one stage per dispatch)"),
                                   cl::init("cost"), cl::cat(kilnCategory));
static cl::opt<bool> noFusion("no-fusion", cl::desc("same as --fusion=none"), cl::init(false),
                              cl::cat(kilnCategory));
static cl::opt<std::string> costTarget("cost-target",
                                       cl::desc("cost-model target, targets/NAME.json, or native "
                                                "(the local Vulkan device's; default h200; "
                                                "--target-file wins)"),
                                       cl::init("h200"), cl::cat(kilnCategory));
static cl::opt<bool> fusionReport("fusion-report",
                                  cl::desc("print each dispatch, its stages and estimated us, "
                                           "and the per-token total"),
                                  cl::init(false), cl::cat(kilnCategory));
static cl::opt<int64_t> costPosition(
    "position",
    cl::desc("price attention (fusion and --fusion-report) at this session position: "
             "min(position + 1, window) keys read (default -1: a full window)"),
    cl::init(-1), cl::cat(kilnCategory));
static cl::opt<bool> quiet("quiet", cl::desc("no progress lines on stderr"), cl::init(false),
                           cl::cat(kilnCategory));
static cl::opt<int64_t> matvecRowsPerItem(
    "matvec-rows-per-item",
    cl::desc("tuning: mat-vec rows a workgroup computes together, both formats (default 0: "
             "the target's matvec_item_shape, else f16 4, q8_2f 8)"),
    cl::init(0),
    cl::cat(kilnCategory));
static cl::opt<int64_t> matvecGroupsPerThread(
    "matvec-groups-per-thread",
    cl::desc("tuning: 16-byte weight groups a mat-vec thread reads per row, both formats "
             "(default 0: the target's matvec_item_shape, else f16 4, q8_2f 8)"),
    cl::init(0), cl::cat(kilnCategory));
static cl::opt<int64_t> matvecPlainGroupsPerThread(
    "matvec-plain-groups-per-thread",
    cl::desc("tuning: groups a thread for mat-vecs of one plain input (no norm, up, column "
             "scale or slerp), both formats (default 0: as the others)"),
    cl::init(0), cl::cat(kilnCategory));
static cl::opt<int64_t> matvecLoadsInFlight(
    "matvec-loads-in-flight",
    cl::desc("tuning: 16-byte weight loads a mat-vec thread issues before their arithmetic "
             "(rows x groups; default 0: 8)"),
    cl::init(0), cl::cat(kilnCategory));
static cl::opt<std::string> matvecItems(
    "matvec-items",
    cl::desc("tuning: what computes one mat-vec item (its rows x one chunk): workgroup (its "
             "threads side by side, one workgroup reduction) | subgroup (a subgroup an item, "
             "a subgroup reduction and no barrier; needs subgroup arithmetic, else "
             "workgroup) (default: the target's matvec_items, else workgroup)"),
    cl::init(""), cl::cat(kilnCategory));
static cl::opt<std::string> headRowsItems(
    "head-rows-items",
    cl::desc("tuning: what computes the hierarchical head's rows of a cluster: subgroup (a "
             "subgroup a few rows at a time, the cluster's log-softmax in workgroup memory; "
             "needs subgroup arithmetic, else workgroup) | workgroup (the whole workgroup "
             "walks the rows 16 at a time) (default: subgroup)"),
    cl::init(""), cl::cat(kilnCategory));
static cl::opt<std::string> matvecActivations(
    "matvec-activations",
    cl::desc("tuning: how head_rows and mat-vecs whose activation is formed from several "
             "buffers (a norm weight, a column scale, an up input) load them: vec4 (four "
             "columns a load through a vector<4xf32> binding of the same buffer, where the "
             "sizes allow) | scalar (one f32 a load), both weight formats (default: vec4)"),
    cl::init(""), cl::cat(kilnCategory));
static cl::opt<std::string> bufferAccess(
    "buffer-access",
    cl::desc("tuning: how the SPIR-V declares a kernel's storage buffers: readonly (a "
             "buffer the kernel only loads from is decorated NonWritable, as GLSL's "
             "readonly) | undecorated (every buffer read-write) | a comma-separated list "
             "of the buffer kinds decorated where read-only: weight, state, scratch, "
             "params (default: readonly)"),
    cl::init("readonly"), cl::cat(kilnCategory));
static cl::opt<std::string> barrierSemantics(
    "barrier-semantics",
    cl::desc("tuning: what a workgroup barrier orders: storage (workgroup and storage-buffer "
             "memory, every kernel) | needed (storage-buffer memory only in a kernel that "
             "hands values between its threads through a storage buffer) (default: storage)"),
    cl::init("storage"), cl::cat(kilnCategory));
static cl::opt<std::string> bufferAccessKernels(
    "buffer-access-kernels",
    cl::desc("debugging: decorate only the bindings whose `KERNEL:BINDING` (kernel "
             "name, binding number) matches this regex (with --buffer-access)"),
    cl::init(""), cl::Hidden, cl::cat(kilnCategory));
static cl::opt<std::string> bufferAccessForm(
    "buffer-access-form",
    cl::desc("debugging: where NonWritable goes: member (the block's member, as glslang "
             "writes it) | variable"),
    cl::init("member"), cl::Hidden, cl::cat(kilnCategory));
static cl::opt<std::string> matvecSums(
    "matvec-sums",
    cl::desc("tuning: how a mat-vec thread sums a row: lanes (four lane sums, added at the "
             "end) | scalar (one sum, multiply-add chains: a quarter of the accumulator "
             "registers) (default: the target's matvec_sums, else lanes)"),
    cl::init(""), cl::cat(kilnCategory));
static cl::opt<std::string> matvecNorm(
    "matvec-norm",
    cl::desc("tuning: where a mat-vec that norms its input applies 1/rms: before (each "
             "workgroup reduces the mean square before its weight loads) | after (the "
             "squares summed beside the dots, the row totals scaled) (default: the target's "
             "matvec_norm, else before)"),
    cl::init(""), cl::cat(kilnCategory));
static cl::opt<std::string> matvecSlerp(
    "matvec-slerp",
    cl::desc("where Dory's residual step (slerp) runs: inside (the mat-vecs that read the new "
             "hidden state form it themselves, no dispatch of its own, where the cost model "
             "says it pays; each reading workgroup reduces the slerp's sums before its weight "
             "loads) | after-dots (inside, the sums taken beside the dots: each row dotted "
             "with two vectors, no reduction before the weight loads) | apart (a dispatch of "
             "its own) (default: apart; inside and after-dots measured 14-16% slower on "
             "the H200 and on an H100)"),
    cl::init(""), cl::cat(kilnCategory));
static cl::opt<std::string> q8Decode(
    "q8-decode",
    cl::desc("tuning: how a q8_2f code becomes an f32: convert (a sign-extending shift pair, "
             "an int-to-float conversion) | exponent (the byte under 2^23's exponent, an "
             "exclusive or and one subtract: no conversion) (default: the target's q8_decode, "
             "else convert)"),
    cl::init(""), cl::cat(kilnCategory));
static cl::opt<int64_t> matvecGridLimit(
    "matvec-grid-limit",
    cl::desc("tuning: at most this many workgroups a mat-vec grid, each walking further items "
             "in turn (fewer workgroups to launch); 0: one a workgroup's items, up to 65535 "
             "(default: the target's matvec_grid_limit, else 0)"),
    cl::init(-1), cl::cat(kilnCategory));
static cl::opt<bool> matvecStageInput(
    "matvec-stage-input",
    cl::desc("tuning: each mat-vec workgroup forms its activation (norm, silu*up, column scale, "
             "slerp) once in workgroup memory, read there by every item it walks (pays with "
             "--matvec-grid-limit; default false: not measured yet)"),
    cl::init(false), cl::cat(kilnCategory));

static cl::opt<bool> absorbColumnFields(
    "absorb-column-fields",
    cl::desc("tuning: a q8_2f column field's multiply (Dory's folds) is applied by the mat-vecs "
             "that read it, as their col_scale, instead of a pass of its own (default true: "
             "dory-1b q8_2f +14% on the H200; =false keeps the folds)"),
    cl::init(true), cl::cat(kilnCategory));

static cl::opt<bool> lastWorkgroupTails(
    "last-workgroup-tails",
    cl::desc("tuning: a one-workgroup stage (a slerp, a norm, the sample) runs in the last "
             "workgroup of the dispatch it reads, without a dispatch of its own (default false: "
             "slower on the H200; docs/fusion.md)"),
    cl::init(false), cl::cat(kilnCategory));

static cl::opt<bool> splitAttention(
    "split-attention",
    cl::desc("tuning: each attention (its key scores, softmax and value sums) runs as one kernel "
             "over blocks of keys, the last workgroup of each head combining them exactly "
             "(default false until measured; docs/fusion.md, \"Split keys\")"),
    cl::init(false), cl::cat(kilnCategory));

static cl::opt<int64_t> prefillRows(
    "prefill-rows",
    cl::desc("also compile a @prefill program that feeds up to N prompt rows a call, each "
             "weight read once a call instead of once a row (Embryo only; 0: prompts run "
             "through @decode a row at a time; default: the cost target's prefill_rows, 0 "
             "where it has none; docs/pipeline.md, \"Rows\")"),
    cl::value_desc("N"), cl::init(0), cl::cat(kilnCategory));

static cl::opt<int64_t> prefillMatMatMinBlocks(
    "prefill-matmat-min-blocks",
    cl::desc("tuning: a plain @prefill mat-vec of at least N blocks (64 weight rows x 64 call "
             "rows) runs as a blocked matrix product, each weight decoded once for 64 call rows "
             "(default 8; 1: every one; 0: none, a workgroup per call row and item)"),
    cl::value_desc("N"), cl::init(8), cl::cat(kilnCategory));
static cl::opt<int64_t> prefillMatMatTile(
    "prefill-matmat-tile",
    cl::desc("tuning: a @prefill blocked product's thread tile, 4 (4 weight rows x 4 call "
             "rows, 256 threads a block), 8 (8 x 8, 64 threads) or 0 (8 where the product has "
             "at least 512 blocks, else 4; default 0)"),
    cl::value_desc("N"), cl::init(0), cl::cat(kilnCategory));
static cl::opt<bool> prefillMatMatCooperative(
    "prefill-matmat-cooperative",
    cl::desc("tuning: a @prefill blocked product (not a routed expert's) runs on the GPU's "
             "matrix units (cooperative matrices: f16 weights, the activations as two f16 "
             "halves, f32 sums); the plan then needs VK_NV_cooperative_matrix, Vulkan 1.3 and "
             "32-lane subgroups (NVIDIA), and is refused elsewhere (default false)"),
    cl::init(false), cl::cat(kilnCategory));
static cl::opt<int64_t> prefillMatMatCooperativeSplit(
    "prefill-matmat-cooperative-split",
    cl::desc("tuning: how a cooperative-matrix product's f32 activations become f16: 0 f16(x) "
             "(11 bits), 1 hi = f16(x) and lo = f16(x - hi), 2 hi by a 10-bit mantissa mask "
             "and lo = 2^11 (x - hi), each into accumulators of its own (default 2)"),
    cl::value_desc("N"), cl::init(2), cl::cat(kilnCategory));
static cl::opt<int64_t> prefillGdnColumns(
    "prefill-gdn-columns",
    cl::desc("tuning: a @prefill GDN step spreads each head's value columns over workgroups "
             "of N columns, so a row's state work runs on several SMs; the last workgroup of "
             "a head applies the gated norm (default 0: a workgroup a head)"),
    cl::value_desc("N"), cl::init(0), cl::cat(kilnCategory));
static cl::opt<bool> prefillGdnHeld(
    "prefill-gdn-held",
    cl::desc("tuning: a @prefill GDN step holds each head's state in registers across the "
             "call's rows (default true; false: the decode kernel walks the rows, the state "
             "through memory)"),
    cl::init(true), cl::cat(kilnCategory));
static cl::opt<bool> prefillGdnShuffleSums(
    "prefill-gdn-shuffle-sums",
    cl::desc("tuning: a held @prefill GDN step sums each column's row slices with subgroup "
             "shuffles, no barrier a row (where the target has subgroup arithmetic; a device "
             "whose subgroup is narrower than the slices sums through workgroup memory; "
             "default false)"),
    cl::init(false), cl::cat(kilnCategory));
static cl::opt<bool> gdnShuffleSums(
    "gdn-shuffle-sums",
    cl::desc("tuning: the decode GDN step sums each column's row slices with subgroup "
             "shuffles instead of through workgroup memory and two barriers a sum (where the "
             "target has subgroup arithmetic; default false)"),
    cl::init(false), cl::cat(kilnCategory));
static cl::opt<int64_t> prefillGdnChunkRows(
    "prefill-gdn-chunk-rows",
    cl::desc("tuning: rows of a held GDN step's chunk, whose norms and gated outputs are "
             "computed in parallel beside the serial part (default 0: as many as 32 KiB of "
             "workgroup memory, or the target's less, holds)"),
    cl::value_desc("N"), cl::init(0), cl::cat(kilnCategory));

static cl::opt<int64_t> blockKeys(
    "block-keys",
    cl::desc("tuning: keys one --split-attention workgroup scores and sums (default 64)"),
    cl::init(64), cl::cat(kilnCategory));

static cl::opt<bool> mergeKernels(
    "merge-kernels",
    cl::desc("one kernel (one pipeline) for dispatches whose kernels are identical, e.g. the "
             "same stage in every layer (default true; false: a kernel per dispatch)"),
    cl::init(true), cl::cat(kilnCategory));
static cl::opt<int64_t> prefetchCacheMB(
    "prefetch-cache-mb",
    cl::desc("tuning: MiB of weights latency-bound dispatches may read ahead into the cache "
             "for the mat-vecs after them (kiln-prefetch-weights); 0: none (default: the "
             "target's prefetch_cache_bytes)"),
    cl::init(-1), cl::cat(kilnCategory));
static cl::opt<bool> prefetchFromMatvecs(
    "prefetch-from-matvecs",
    cl::desc("tuning: mat-vec dispatches prefetch the next weights too (default: only "
             "dispatches without a mat-vec)"),
    cl::init(false), cl::cat(kilnCategory));

static cl::opt<int64_t> reduceWorkgroupSize(
    "reduce-workgroup-size",
    cl::desc("tuning: threads of a one-workgroup stage (rmsnorm, router, slerp, dory_mix, "
             "sample), of gdn_step and the mat-vec reductions' cap; a power of two "
             "within the target's max_workgroup_size (default 0: the target's "
             "reduce_workgroup_size, else 256, capped by max_workgroup_size)"),
    cl::init(0), cl::cat(kilnCategory));

static cl::opt<int64_t> attentionWorkgroupSize(
    "attention-workgroup-size",
    cl::desc("tuning: threads of a key_scores / attention workgroup (a block of keys, a "
             "slice of head dims), at most 256 used; a power of two within the target's "
             "max_workgroup_size (default 0: the largest such, at most 256)"),
    cl::init(0), cl::cat(kilnCategory));

static cl::opt<int64_t> attentionValueDims(
    "attention-value-dims",
    cl::desc("tuning: head dims an attention / window_attention workgroup sums (the grid is "
             "heads x head_dim / this); a power of two in [1, 64] (default 0: the largest "
             "dividing head_dim, at most the target's attention_value_dims, else 16)"),
    cl::init(0), cl::cat(kilnCategory));

namespace {

int fail(const std::string &message);

/// `--cost-target native`: the shipped descriptor of a device the Vulkan loader
/// lists, asked of kiln-run beside this executable (the compiler links no
/// Vulkan), as -march=native asks the CPU.
::kiln::io::Expected<std::string> nativeCostTarget(const char *argv0) {
  std::string self = llvm::sys::fs::getMainExecutable(argv0, reinterpret_cast<void *>(&fail));
  llvm::SmallString<256> runner(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(runner, "kiln-run");
  if (!llvm::sys::fs::can_execute(runner))
    return ::kiln::io::Error("--cost-target native: cannot find kiln-run beside kiln-compile (" +
                             runner.str().str() + ")");
  std::string command = "'" + runner.str().str() + "' --list-devices 2>/dev/null";
  FILE *pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    return ::kiln::io::Error("--cost-target native: cannot run kiln-run --list-devices");
  // Lines "N: NAME (TYPE, subgroup ...)"; NAME may hold parentheses itself.
  std::vector<std::pair<std::string, bool>> devices;
  char line[1024];
  while (std::fgets(line, sizeof line, pipe)) {
    std::string text(line);
    size_t colon = text.find(": "), open = text.rfind(" (");
    if (colon == std::string::npos || open == std::string::npos || open <= colon)
      continue;
    devices.push_back({text.substr(colon + 2, open - colon - 2),
                       text.compare(open + 2, 3, "CPU") == 0});
  }
  ::pclose(pipe);
  return ::kiln::cost::nativeTargetName(devices);
}

int fail(const std::string &message) {
  llvm::errs() << "kiln-compile: error: " << message << "\n";
  return 1;
}

/// Progress lines for the slow steps, with their wall time.
class Progress {
public:
  void begin(const std::string &what) {
    if (quiet)
      return;
    start_ = std::chrono::steady_clock::now();
    llvm::errs() << "kiln-compile: " << what << "...";
    llvm::errs().flush();
  }
  void end() {
    if (quiet)
      return;
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
                  .count();
    llvm::errs() << llvm::format(" %.0f ms\n", ms);
  }

private:
  std::chrono::steady_clock::time_point start_;
};

/// Progress lines for the pipeline's slow passes, and the fusion report right
/// after kiln-fuse-dispatches (the dispatch regions are gone once the kernels
/// are generated), from inside the one pass-manager run.
class PipelineProgress : public PassInstrumentation {
public:
  PipelineProgress(Progress &progress, std::function<void(ModuleOp)> afterFusion)
      : progress_(progress), afterFusion_(std::move(afterFusion)) {}

  void runBeforePass(Pass *pass, Operation *) override {
    if (const char *what = describe(pass->getArgument()))
      progress_.begin(what);
  }
  void runAfterPass(Pass *pass, Operation *op) override {
    if (describe(pass->getArgument()))
      progress_.end();
    if (pass->getArgument() == "kiln-fuse-dispatches" && afterFusion_)
      if (auto module = dyn_cast<ModuleOp>(op))
        afterFusion_(module);
  }
  void runAfterPassFailed(Pass *pass, Operation *) override {
    if (describe(pass->getArgument()))
      progress_.end();
  }

private:
  /// The passes worth a progress line.
  static const char *describe(StringRef pass) {
    return llvm::StringSwitch<const char *>(pass)
        .Case("convert-kiln-to-stage", "lowering to stages")
        .Case("kiln-fuse-dispatches", "fusing dispatches")
        .Case("convert-stage-to-gpu", "generating GPU kernels")
        .Default(nullptr);
  }

  Progress &progress_;
  std::function<void(ModuleOp)> afterFusion_;
};

/// Writes text to -o (atomically) or stdout.
int writeText(const std::string &text) {
  if (outputPath.empty() || outputPath == "-") {
    llvm::outs() << text;
    return 0;
  }
  std::string error = ::kiln::writeFileAtomically(outputPath, text.data(), text.size());
  return error.empty() ? 0 : fail(error);
}

int printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  os << "\n";
  return writeText(text);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  // --help shows Kiln's options and MLIR's (--mlir-print-ir-after-all, --mlir-timing, ...),
  // not the hundreds of LLVM backend flags libMLIR.so registers (--help-hidden lists all).
  cl::HideUnrelatedOptions(kilnCategory);
  for (auto &entry : cl::getRegisteredOptions())
    if (entry.first.starts_with("mlir-"))
      entry.second->setHiddenFlag(cl::NotHidden);
  cl::ParseCommandLineOptions(
      argc, argv,
      "kiln-compile: compile a model config into a Kiln plan (.kplan)\n\n"
      "  kiln-compile CONFIG.json --weight-format f16|q8_2f -o model.kplan\n"
      "  kiln-compile --from-stages STAGES.mlir -o model.kplan\n");

  bool fromConfig = fromStages.empty();
  if (fromConfig && configPath.empty())
    return fail("no config given (kiln-compile CONFIG.json ... or --from-stages FILE; see --help)");
  if (!fromConfig && !configPath.empty())
    return fail("give either a config or --from-stages, not both");
  static const char *const kEmits[] = {"", "mlir", "stages", "gpu", "spirv", "msl", "plan-json"};
  if (std::find(std::begin(kEmits), std::end(kEmits), emit.getValue()) == std::end(kEmits))
    return fail("--emit: '" + emit + "' is not one of mlir, stages, gpu, spirv, msl, plan-json");
  if (target != "vulkan" && target != "metal" && target != "all")
    return fail("--target: '" + target + "' is not one of vulkan, metal, all");
  if (!fromConfig && emit == "mlir")
    return fail("--emit=mlir needs a config (the input of --from-stages is already stages)");
  if (emit.empty() && outputPath.empty())
    return fail("-o is required to write a plan (or pick an --emit)");
  if (emit == "spirv" && outputPath.empty())
    return fail("--emit=spirv writes one .spv per kernel: give the folder with -o");

  ::kiln::KilnPipelineOptions pipeline;
  if (fusion != "cost" && fusion != "none")
    return fail("--fusion: '" + fusion + "' is not one of cost, none");
  pipeline.fusion = fusion == "cost" && !noFusion;
  if (costPosition < -1 || costPosition > (int64_t(1) << 31))
    return fail("--position must be a session position in [0, 2^31] (or -1: a full window)");
  pipeline.position = costPosition;
  if (prefetchCacheMB.getNumOccurrences()) {
    if (prefetchCacheMB < 0 || prefetchCacheMB > 65536)
      return fail("--prefetch-cache-mb must be in [0, 65536] MiB (0: no prefetch), not " +
                  std::to_string(prefetchCacheMB));
    pipeline.prefetchCacheBytes = prefetchCacheMB * 1024 * 1024;
  }
  pipeline.prefetchFromMatvecs = prefetchFromMatvecs;
  pipeline.lastWorkgroupTails = lastWorkgroupTails;
  if (blockKeys < 1 || blockKeys > 4096)
    return fail("--block-keys must be in [1, 4096], not " + std::to_string(blockKeys));
  pipeline.splitAttention = splitAttention;
  if (prefillRows < 0 || prefillRows == 1 || prefillRows > 1024)
    return fail("--prefill-rows must be 0 (no @prefill) or in [2, 1024], not " +
                std::to_string(prefillRows));
  pipeline.prefillRows = prefillRows;
  if (prefillMatMatMinBlocks < 0)
    return fail("--prefill-matmat-min-blocks must be at least 0, not " +
                std::to_string(prefillMatMatMinBlocks));
  pipeline.kernels.prefillMatMatMinBlocks = prefillMatMatMinBlocks;
  if (prefillMatMatTile != 0 && prefillMatMatTile != 4 && prefillMatMatTile != 8)
    return fail("--prefill-matmat-tile must be 0, 4 or 8, not " +
                std::to_string(prefillMatMatTile));
  pipeline.kernels.prefillMatMatTile = prefillMatMatTile;
  pipeline.kernels.prefillMatMatCooperative = prefillMatMatCooperative;
  if (prefillGdnColumns < 0)
    return fail("--prefill-gdn-columns must be 0 or more, not " +
                std::to_string(prefillGdnColumns));
  pipeline.kernels.prefillGdnColumns = prefillGdnColumns;
  if (prefillMatMatCooperativeSplit < 0 || prefillMatMatCooperativeSplit > 2)
    return fail("--prefill-matmat-cooperative-split must be 0, 1 or 2, not " +
                std::to_string(prefillMatMatCooperativeSplit));
  pipeline.kernels.prefillMatMatCooperativeSplit =
      static_cast<kiln::CooperativeSplit>(prefillMatMatCooperativeSplit.getValue());
  pipeline.kernels.prefillGdnHeld = prefillGdnHeld;
  pipeline.kernels.prefillGdnShuffleSums = prefillGdnShuffleSums;
  pipeline.kernels.gdnShuffleSums = gdnShuffleSums;
  if (prefillGdnChunkRows < 0)
    return fail("--prefill-gdn-chunk-rows must be at least 0, not " +
                std::to_string(prefillGdnChunkRows));
  pipeline.kernels.prefillGdnChunkRows = prefillGdnChunkRows;
  pipeline.blockKeys = blockKeys;
  pipeline.absorbColumnFields = absorbColumnFields;
  pipeline.kernels.mergeIdenticalKernels = mergeKernels;
  std::string costTargetName = costTarget;
  if (costTargetName == "native" && targetFile.empty()) {
    auto native = nativeCostTarget(argv[0]);
    if (!native)
      return fail(native.error().message());
    costTargetName = *native;
    if (!quiet)
      llvm::errs() << "kiln-compile: --cost-target native: " << costTargetName << "\n";
  }
  pipeline.costTarget = costTargetName;
  pipeline.costTargetFile = targetFile;
  if (matvecRowsPerItem < 0 || matvecRowsPerItem > 16)
    return fail("--matvec-rows-per-item must be in [0, 16] (0: by weight format)");
  if (matvecGroupsPerThread < 0 || matvecGroupsPerThread > 64)
    return fail("--matvec-groups-per-thread must be in [0, 64] (0: by weight format)");
  pipeline.kernels.matvecRowsPerItem = matvecRowsPerItem;
  if (matvecLoadsInFlight < 0 || matvecLoadsInFlight > 64)
    return fail("--matvec-loads-in-flight must be in [0, 64] (0: the default, 8)");
  pipeline.kernels.matvecGroupsPerThread = matvecGroupsPerThread;
  if (matvecPlainGroupsPerThread < 0 || matvecPlainGroupsPerThread > 64)
    return fail("--matvec-plain-groups-per-thread must be in [0, 64] (0: as the others)");
  pipeline.kernels.matvecPlainGroupsPerThread = matvecPlainGroupsPerThread;
  pipeline.kernels.matvecLoadsInFlight = matvecLoadsInFlight;

  DialectRegistry registry;
  registry.insert<kiln::graph::KilnDialect, ::kiln::stage::StageDialect, func::FuncDialect,
                  arith::ArithDialect, gpu::GPUDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect, spirv::SPIRVDialect,
                  tensor::TensorDialect, vector::VectorDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  Progress progress;

  OwningOpRef<ModuleOp> module;
  if (fromConfig) {
    auto config = ::kiln::io::loadModelConfig(configPath);
    if (!config)
      return fail(config.error().message());
    if (weightFormat.empty())
      return fail("--weight-format is required (f16 or q8_2f)");
    auto format = ::kiln::io::parseWeightFormat(weightFormat);
    if (!format)
      return fail("--weight-format: " + format.error().message());
    progress.begin("importing " + configPath);
    std::string error;
    module = ::kiln::importModelConfig(context, *config, *format, &error);
    progress.end();
    if (!module)
      return fail("import: " + error);
    if (emit == "mlir")
      return printModule(*module);
  } else {
    if (!weightFormat.empty())
      return fail("--weight-format applies to a config; a stage module names its format");
    std::string error;
    auto input = openInputFile(fromStages, &error);
    if (!input)
      return fail(error);
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return fail("cannot parse '" + fromStages + "'");
  }

  ::kiln::TargetOptions spirvOptions;
  spirvOptions.readOnlyBuffers = bufferAccess != "undecorated";
  if (barrierSemantics != "storage" && barrierSemantics != "needed")
    return fail("--barrier-semantics must be storage or needed, not '" + barrierSemantics +
                "'");
  spirvOptions.storageBarriersWhereNeeded = barrierSemantics == "needed";
  if (bufferAccessForm != "member" && bufferAccessForm != "variable")
    return fail("--buffer-access-form must be member or variable, not '" + bufferAccessForm +
                "'");
  spirvOptions.readOnlyOnMember = bufferAccessForm == "member";
  llvm::SmallVector<::kiln::stage::BufferKind> readOnlyKinds;
  if (bufferAccess != "readonly" && bufferAccess != "undecorated") {
    llvm::SmallVector<llvm::StringRef> words;
    llvm::StringRef(bufferAccess).split(words, ',');
    for (llvm::StringRef word : words) {
      auto kind = ::kiln::stage::symbolizeBufferKind(word.trim());
      if (!kind || *kind == ::kiln::stage::BufferKind::Readback)
        return fail("--buffer-access must be readonly, undecorated or a list of weight, "
                    "state, scratch, params; not '" + word.str() + "'");
      readOnlyKinds.push_back(*kind);
    }
  }

  // The device the kernels are for: shapes and SPIR-V capabilities.
  {
    auto desc = ::kiln::stage::selectTarget(
        *module, {targetFile, costTargetName, ::kiln::stage::defaultTargetDirectory()});
    if (!desc)
      return fail(desc.error().message());
    ::kiln::applyTarget(*module, *desc, pipeline);
    // An Embryo model gets the target's @prefill unless the flag says otherwise.
    if (prefillRows.getNumOccurrences() == 0)
      for (auto model : module->getOps<kiln::graph::ModelOp>())
        if (model.getFamily() == kiln::graph::Family::embryo)
          pipeline.prefillRows = desc->prefillRows;
    if (reduceWorkgroupSize != 0) {
      const int64_t size = reduceWorkgroupSize;
      if (size < 32 || (size & (size - 1)) != 0 ||
          size > static_cast<int64_t>(desc->maxWorkgroupSize))
        return fail("--reduce-workgroup-size " + std::to_string(size) +
                    " must be a power of two in [32, " + std::to_string(desc->maxWorkgroupSize) +
                    "] (the target's max_workgroup_size)");
      pipeline.kernels.reduceWorkgroupSize = size;
    }
    if (attentionWorkgroupSize != 0) {
      const int64_t size = attentionWorkgroupSize;
      if (size < 32 || (size & (size - 1)) != 0 ||
          size > static_cast<int64_t>(desc->maxWorkgroupSize))
        return fail("--attention-workgroup-size " + std::to_string(size) +
                    " must be a power of two in [32, " + std::to_string(desc->maxWorkgroupSize) +
                    "] (the target's max_workgroup_size)");
      pipeline.kernels.attentionWorkgroupSize = size;
    }
    // A two-word switch: the flag's word, when given, overrides the target's.
    auto twoWay = [&](const cl::opt<std::string> &flag, const char *off, const char *on,
                      bool &out) {
      if (flag.empty())
        return true;
      if (flag != off && flag != on)
        return false;
      out = flag == on;
      return true;
    };
    if (!twoWay(matvecItems, "workgroup", "subgroup", pipeline.kernels.matvecSubgroupItems))
      return fail("--matvec-items must be workgroup or subgroup, not '" + matvecItems + "'");
    if (!twoWay(headRowsItems, "workgroup", "subgroup", pipeline.kernels.headRowsBySubgroup))
      return fail("--head-rows-items must be workgroup or subgroup, not '" + headRowsItems +
                  "'");
    // The per-format switches: the flag's word sets both formats.
    auto twoWayBoth = [&](const cl::opt<std::string> &flag, const char *off, const char *on,
                          ::kiln::FormatSwitch &out) {
      bool on16 = out.f16;
      if (!twoWay(flag, off, on, on16))
        return false;
      if (!flag.empty())
        out = ::kiln::FormatSwitch::both(on16);
      return true;
    };
    if (!twoWayBoth(matvecSums, "lanes", "scalar", pipeline.kernels.matvecScalarSums))
      return fail("--matvec-sums must be lanes or scalar, not '" + matvecSums + "'");
    if (!twoWayBoth(matvecNorm, "before", "after", pipeline.kernels.matvecNormAfterDots))
      return fail("--matvec-norm must be before or after, not '" + matvecNorm + "'");
    if (!twoWayBoth(matvecActivations, "scalar", "vec4", pipeline.kernels.vectorActivations))
      return fail("--matvec-activations must be scalar or vec4, not '" + matvecActivations +
                  "'");
    if (!matvecSlerp.empty()) {
      if (matvecSlerp != "apart" && matvecSlerp != "inside" && matvecSlerp != "after-dots")
        return fail("--matvec-slerp must be apart, inside or after-dots, not '" + matvecSlerp +
                    "'");
      pipeline.absorbSlerps = matvecSlerp != "apart";
      pipeline.kernels.matvecSlerpAfterDots = matvecSlerp == "after-dots";
    }
    if (!twoWay(q8Decode, "convert", "exponent", pipeline.kernels.q8DecodeByExponent))
      return fail("--q8-decode must be convert or exponent, not '" + q8Decode + "'");
    if (matvecGridLimit.getNumOccurrences()) {
      if (matvecGridLimit < 0 || matvecGridLimit > 65535)
        return fail("--matvec-grid-limit must be in [0, 65535] (0: no limit), not " +
                    std::to_string(matvecGridLimit));
      pipeline.kernels.matvecGridLimit = matvecGridLimit;
    }
    if (matvecStageInput.getNumOccurrences())
      pipeline.kernels.matvecStageInput = matvecStageInput;
    if (attentionValueDims != 0) {
      const int64_t dims = attentionValueDims;
      if (dims < 1 || dims > 64 || (dims & (dims - 1)) != 0)
        return fail("--attention-value-dims " + std::to_string(dims) +
                    " must be a power of two in [1, 64]");
      pipeline.kernels.attentionValueDims = dims;
    }
  }
  // One pass manager from the input's level to what is emitted, every pass
  // once (docs/pipeline.md); everything reports through MLIR diagnostics.
  {
    ::kiln::KilnPipelineOptions options = pipeline;
    options.from = fromConfig ? ::kiln::PipelineLevel::Graph : ::kiln::PipelineLevel::Stages;
    // --emit=stages shows the fused dispatch regions.
    options.to = emit == "stages" ? ::kiln::PipelineLevel::FusedStages : ::kiln::PipelineLevel::GPU;
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return fail("bad pass manager options");
    DefaultTimingManager timing;
    applyDefaultTimingManagerCLOptions(timing);
    TimingScope timingScope = timing.getRootScope();
    pm.enableTiming(timingScope);
    std::string error;
    if (failed(::kiln::buildKilnPipeline(pm, options, &error)))
      return fail(error);
    pm.addInstrumentation(std::make_unique<PipelineProgress>(progress, [&](ModuleOp fused) {
      if (fusionReport)
        (emit.empty() ? llvm::outs() : llvm::errs())
            << ::kiln::stage::formatFusionReport(::kiln::stage::buildFusionReport(fused));
    }));
    if (failed(pm.run(*module)))
      return fail("compilation failed (see the diagnostics above)");
  }
  if (emit == "stages")
    return printModule(*module);
  if (emit == "gpu")
    return printModule(*module);

  if (!readOnlyKinds.empty())
    spirvOptions.readOnlyFilter = ::kiln::readOnlyKindsFilter(*module, readOnlyKinds);
  if (!bufferAccessKernels.empty()) {
    auto pattern = std::make_shared<llvm::Regex>(bufferAccessKernels);
    std::string why;
    if (!pattern->isValid(why))
      return fail("--buffer-access-kernels: " + why);
    auto inner = spirvOptions.readOnlyFilter;
    spirvOptions.readOnlyFilter = [pattern, inner](llvm::StringRef kernel, unsigned binding) {
      return pattern->match((kernel + ":" + llvm::Twine(binding)).str()) &&
             (!inner || inner(kernel, binding));
    };
  }

  if (emit == "spirv" || emit == "msl") {
    progress.begin(emit == "msl" ? "serializing SPIR-V and MSL" : "serializing SPIR-V");
    auto kernels =
        ::kiln::compilePlanKernels(*module, /*withMSL=*/emit == "msl", spirvOptions);
    progress.end();
    if (failed(kernels))
      return fail("kernel compilation failed (see the diagnostics above)");
    if (emit == "spirv") {
      if (std::error_code ec = llvm::sys::fs::create_directories(outputPath))
        return fail("cannot create folder '" + outputPath + "': " + ec.message());
      for (const ::kiln::KernelBinary &binary : kernels->spirv) {
        llvm::SmallString<256> path(outputPath);
        llvm::sys::path::append(path, binary.name + ".spv");
        std::string error = ::kiln::writeFileAtomically(
            path.str().str(), binary.words.data(), binary.words.size() * sizeof(uint32_t));
        if (!error.empty())
          return fail(error);
      }
      if (!quiet)
        llvm::errs() << "kiln-compile: wrote " << kernels->spirv.size() << " kernels to "
                     << outputPath << "\n";
      return 0;
    }
    std::string text;
    for (const ::kiln::KernelBinary &binary : kernels->spirv) {
      const ::kiln::MSLKernel &msl = kernels->msl.at(binary.name);
      const auto &size = msl.threadgroupSize;
      text += "// kernel " + binary.name + " entry " + msl.entryPoint + " threadgroup " +
              std::to_string(size[0]) + "x" + std::to_string(size[1]) + "x" +
              std::to_string(size[2]) + "\n" + msl.source + "\n";
    }
    return writeText(text);
  }

  ::kiln::PlanWriterOptions writer;
  writer.embedSPIRV = target != "metal";
  writer.embedMSL = target != "vulkan";
  writer.barrierEveryDispatch = allBarriers;
  writer.everyDispatchEveryCall = everyCall;
  progress.begin("compiling the kernels");
  auto kernels = ::kiln::compilePlanKernels(*module, writer.embedMSL, spirvOptions);
  progress.end();
  if (failed(kernels))
    return fail("kernel compilation failed (see the diagnostics above)");
  progress.begin("writing the plan");
  auto plan = ::kiln::buildPlan(*module, *kernels, writer);
  progress.end();
  if (failed(plan))
    return fail("plan writing failed (see the diagnostics above)");
  if (emit == "plan-json") {
    ::kiln::PlanJsonResult json = ::kiln::planToJson(plan->data(), plan->size());
    if (!json.ok)
      return fail("internal: the written plan does not verify: " + json.error);
    return writeText(json.json);
  }
  std::string error = ::kiln::writeFileAtomically(outputPath, plan->data(), plan->size());
  if (!error.empty())
    return fail(error);
  if (!quiet)
    llvm::errs() << "kiln-compile: wrote " << outputPath << " (" << plan->size() << " bytes)\n";
  return 0;
}
