//===- Pipeline.h - Kiln's compile pipeline as a pass pipeline --*- C++ -*-===//
//
// The passes between the imported kiln module and the GPU-level module the
// plan writer reads (docs/pipeline.md). kiln-compile builds it through
// buildKilnPipeline; kiln-opt runs the same thing as
// `--pass-pipeline='builtin.module(kiln-pipeline{from=stages})'`.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PIPELINE_PIPELINE_H
#define KILN_PIPELINE_PIPELINE_H

#include "kiln/Conversion/StageToGPU/StageToGPU.h"

#include "mlir/Pass/PassManager.h"

#include "kiln/Cost/TargetDesc.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace kiln {

/// The IR levels of docs/pipeline.md, in order: the imported graph, the
/// stages convert-kiln-to-stage writes (memory planned), the stages in their
/// fused dispatch regions (kiln-absorb-into-matvec, kiln-fuse-dispatches),
/// and the GPU kernels.
enum class PipelineLevel { Graph, Stages, FusedStages, GPU };

struct KilnPipelineOptions {
  /// Where the input module is: Graph (the importer's output), Stages or
  /// FusedStages (fusion is not run again).
  PipelineLevel from = PipelineLevel::Graph;
  /// Where to stop: Stages (after kiln-plan-memory), FusedStages (after
  /// fusion) or GPU.
  PipelineLevel to = PipelineLevel::GPU;
  /// How convert-stage-to-gpu shapes the kernels (applyTarget and
  /// kiln-compile's tuning flags fill it). Subgroup reductions are on unless
  /// the target lacks them, as the pass's own option.
  StageToGPUOptions kernels = [] {
    StageToGPUOptions o;
    o.subgroupReduce = true;
    return o;
  }();
  /// --kiln-fuse-dispatches before convert-stage-to-gpu (docs/fusion.md);
  /// false keeps one stage per dispatch (estimates are still annotated).
  bool fusion = true;
  /// With fusion: Dory's slerps folded into the mat-vecs that read them
  /// (kiln-absorb-into-matvec's `slerps`). Off: measured slower on an H100
  /// (dory-1b f16 296.6 -> 274.6 tokens/s, docs/performance.md).
  bool absorbSlerps = false;
  /// With fusion: q8_2f column-field muls folded into the mat-vecs that read
  /// them as their col_scale (kiln-absorb-into-matvec's `column-fields`): on
  /// the H200 dory-1b q8_2f 311.96 -> 356.73 tokens/s (docs/performance.md).
  bool absorbColumnFields = true;
  /// With fusion: bytes kiln-prefetch-weights may read ahead into the cache
  /// (-1: the target's prefetch_cache_bytes; 0: no prefetch), and whether
  /// dispatches holding a mat-vec prefetch too.
  int64_t prefetchCacheBytes = -1;
  bool prefetchFromMatvecs = false;
  /// With fusion: a one-workgroup stage after its producer runs in the
  /// producer's last workgroup (kiln-fuse-dispatches' `last-workgroup-tails`).
  /// Off: measured slower on an H200 (dory-1b f16 401.2 -> 323.0 tokens/s,
  /// docs/performance.md).
  bool lastWorkgroupTails = false;
  /// With fusion: each key_scores dispatch and the attention dispatch that
  /// reads its scores run as one split_keys kernel (kiln-fuse-dispatches'
  /// `split-attention`), blocks of `blockKeys` keys a workgroup.
  bool splitAttention = false;
  /// convert-kiln-to-stage's `prefill-rows`: also a @prefill program of this
  /// many rows a call (0: none).
  int64_t prefillRows = 0;
  int64_t blockKeys = 64;
  /// The session position the cost model prices attention at; -1: a full
  /// window (docs/cost-model.md).
  int64_t position = -1;
  /// The cost model's target: a descriptor file, else a name in targets/.
  std::string costTargetFile;
  std::string costTarget = "h200";
};

/// Adds the passes from `options.from` to `options.to` to `pm` (anchored on
/// builtin.module). Fails with a message when the range is empty the wrong
/// way round (from after to).
mlir::LogicalResult buildKilnPipeline(mlir::OpPassManager &pm,
                                      const KilnPipelineOptions &options,
                                      std::string *error);

/// Shapes kernels for the device `desc` describes: workgroup sizes within
/// its limits, subgroup reductions where it has them (options), and the
/// SPIR-V target environment the kernels are generated and serialized for
/// (set on `module` as `spirv.target_env`).
void applyTarget(mlir::ModuleOp module, const cost::TargetDesc &desc,
                 KilnPipelineOptions &options);

/// Registers Kiln's conversion passes and the `kiln-pipeline` pass pipeline
/// (options `from=graph|stages|fused`, `to=stages|fused|gpu`).
void registerKilnPipeline();

} // namespace kiln

#endif // KILN_PIPELINE_PIPELINE_H
