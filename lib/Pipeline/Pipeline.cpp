//===- Pipeline.cpp - Kiln's compile pipeline -----------------------------===//
//
// Every pass by its typed creator, in the order docs/pipeline.md draws.
//
//===----------------------------------------------------------------------===//
#include "kiln/Pipeline/Pipeline.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Stage/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace kiln {
namespace {

struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
  Option<std::string> from{*this, "from",
                           llvm::cl::desc("input level: graph | stages | fused"),
                           llvm::cl::init("graph")};
  Option<std::string> to{*this, "to", llvm::cl::desc("output level: stages | fused | gpu"),
                         llvm::cl::init("gpu")};
  Option<std::string> fusion{*this, "fusion", llvm::cl::desc("cost | none"),
                             llvm::cl::init("cost")};
  Option<std::string> target{*this, "cost-target",
                             llvm::cl::desc("cost-model target name (targets/NAME.json)"),
                             llvm::cl::init("h200")};
};

/// Registers the conversion passes by name (idempotent).
void registerKilnPasses() {
  static bool done = [] {
    registerConvertStageToGPU();
    registerConvertKilnToStage();
    return true;
  }();
  (void)done;
}

/// A stage pass's options naming the pipeline's cost target (each such pass
/// reads it: kiln-absorb-into-matvec, kiln-fuse-dispatches,
/// kiln-prefetch-weights).
template <typename PassOptions>
PassOptions targetedOptions(const KilnPipelineOptions &options) {
  PassOptions pass;
  pass.targetName = options.costTarget;
  pass.targetFile = options.costTargetFile;
  return pass;
}

/// The stage-level fusion passes: with fusion on, kiln-absorb-into-matvec,
/// kiln-fuse-dispatches and kiln-prefetch-weights; with it off,
/// kiln-fuse-dispatches only annotating estimates.
void addFusionPasses(OpPassManager &pm, const KilnPipelineOptions &options) {
  if (options.fusion) {
    auto absorb = targetedOptions<stage::KilnAbsorbIntoMatVecOptions>(options);
    absorb.slerps = options.absorbSlerps;
    absorb.columnFields = options.absorbColumnFields;
    pm.addPass(stage::createKilnAbsorbIntoMatVec(absorb));
  }
  auto fuse = targetedOptions<stage::KilnFuseDispatchesOptions>(options);
  fuse.fuse = options.fusion;
  fuse.position = options.position;
  fuse.lastWorkgroupTails = options.lastWorkgroupTails;
  fuse.splitAttention = options.splitAttention;
  fuse.blockKeys = options.blockKeys;
  pm.addPass(stage::createKilnFuseDispatches(fuse));
  if (options.fusion) {
    // Prefetches ride in the fused dispatches, sized by their estimates.
    auto prefetch = targetedOptions<stage::KilnPrefetchWeightsOptions>(options);
    prefetch.cacheBytes = options.prefetchCacheBytes;
    prefetch.fromMatvecs = options.prefetchFromMatvecs;
    pm.addPass(stage::createKilnPrefetchWeights(prefetch));
  }
}

} // namespace

LogicalResult buildKilnPipeline(OpPassManager &pm, const KilnPipelineOptions &options,
                                std::string *error) {
  registerKilnPasses();
  if (options.from > options.to) {
    if (error)
      *error = "the pipeline's input level comes after its output level";
    return failure();
  }
  if (options.from == PipelineLevel::Graph && options.to >= PipelineLevel::Stages) {
    ConvertKilnToStageOptions lowering;
    lowering.prefillRows = options.prefillRows;
    pm.addPass(createConvertKilnToStage(lowering));
    // The lowering leaves every buffer unplaced; a stage-level input comes placed.
    pm.addPass(stage::createKilnPlanMemory());
  }
  // Fusion decides the dispatch regions the kernels are generated from.
  if (options.from <= PipelineLevel::Stages && options.to >= PipelineLevel::FusedStages)
    addFusionPasses(pm, options);
  if (options.from != PipelineLevel::GPU && options.to == PipelineLevel::GPU)
    pm.addPass(createConvertStageToGPU(options.kernels));
  return success();
}

void applyTarget(ModuleOp module, const cost::TargetDesc &desc,
                 KilnPipelineOptions &options) {
  // Reductions run in one workgroup: the target's measured width, else 256;
  // the largest power of two the target allows, at most that.
  int64_t cap = desc.reduceWorkgroupSize > 0 ? desc.reduceWorkgroupSize : 256;
  int64_t size = 1;
  while (size * 2 <= static_cast<int64_t>(desc.maxWorkgroupSize) && size * 2 <= cap)
    size *= 2;
  options.kernels.reduceWorkgroupSize = size;
  options.kernels.maxWorkgroupSize = std::max<int64_t>(size, desc.maxWorkgroupSize);
  options.kernels.rowWorkgroupSize = std::min<int64_t>(64, desc.maxWorkgroupSize);
  options.kernels.headWorkgroupSize = std::min<int64_t>(64, size);
  // Attention is split over workgroups (a block of keys, a slice of head
  // dims), each needing no more than 256 threads: the largest power of two
  // the target allows, at most that.
  int64_t attention = 1;
  while (attention * 2 <= static_cast<int64_t>(desc.maxWorkgroupSize) && attention * 2 <= 256)
    attention *= 2;
  options.kernels.attentionWorkgroupSize = attention;
  options.kernels.attentionValueDims = desc.attentionValueDims;
  options.kernels.matvecSubgroupItems = desc.matvecSubgroupItems;
  options.kernels.q8DecodeByExponent = desc.q8DecodeByExponent;
  options.kernels.matvecScalarSums = {desc.matvecScalarSums.f16, desc.matvecScalarSums.q8};
  options.kernels.matvecNormAfterDots = {desc.matvecNormAfterDots.f16,
                                         desc.matvecNormAfterDots.q8};
  options.kernels.matvecGridLimit = desc.matvecGridLimit;
  auto shape = [](const cost::MatvecItemShape &s) {
    return kiln::ItemShape{static_cast<int64_t>(s.rows), static_cast<int64_t>(s.groups)};
  };
  options.kernels.matvecItemShape = {shape(desc.matvecItemShape.f16),
                                     shape(desc.matvecItemShape.q8)};
  options.kernels.maxWorkgroupMemoryBytes = desc.maxSharedMemoryBytes;
  options.kernels.subgroupReduce = desc.subgroupArithmetic;
  // SPIR-V 1.3 is Vulkan 1.1's, which has subgroup operations. A target with
  // subgroup arithmetic is taken to shuffle too (lavapipe, NVIDIA, AMD, Apple
  // do); a plan records what each kernel uses and the runtime checks it.
  std::string caps = desc.subgroupArithmetic ? "Shader, GroupNonUniform, "
                                               "GroupNonUniformArithmetic, GroupNonUniformShuffle"
                                             : "Shader";
  std::string text = "#spirv.target_env<#spirv.vce<v1.3, [" + caps +
                     "], [SPV_KHR_storage_buffer_storage_class]>, "
                     "#spirv.resource_limits<>>";
  module->setAttr(spirv::getTargetEnvAttrName(),
                  parseAttribute(text, module.getContext()));
}

void registerKilnPipeline() {
  registerKilnPasses();
  PassPipelineRegistration<PipelineCLOptions>(
      "kiln-pipeline",
      "Kiln's compile pipeline: kiln graph -> stages -> GPU kernels (docs/pipeline.md)",
      [](OpPassManager &pm, const PipelineCLOptions &cl) {
        KilnPipelineOptions options;
        auto level = [](StringRef text, PipelineLevel fallback) {
          if (text == "graph") return PipelineLevel::Graph;
          if (text == "stages") return PipelineLevel::Stages;
          if (text == "fused") return PipelineLevel::FusedStages;
          if (text == "gpu") return PipelineLevel::GPU;
          return fallback;
        };
        options.from = level(cl.from, PipelineLevel::Graph);
        options.to = level(cl.to, PipelineLevel::GPU);
        options.fusion = cl.fusion != "none";
        options.costTarget = cl.target;
        std::string error;
        if (failed(buildKilnPipeline(pm, options, &error)))
          llvm::errs() << "kiln-pipeline: " << error << "\n";
      });
}

} // namespace kiln
