//===- CostModel.h - Estimated time of stages and dispatches ----*- C++ -*-===//
//
// The fusion pass turns stage ops into StageCost records (plain numbers) and
// asks a CostModel what a dispatch of them would cost. Keeping the interface
// free of MLIR makes the model unit-testable on its own.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COST_COSTMODEL_H
#define KILN_COST_COSTMODEL_H

#include "kiln/Cost/TargetDesc.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace kiln::cost {

/// What one stage does, in the numbers the model needs.
struct StageCost {
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
  uint64_t flops = 0;
  /// Workgroups the stage can keep busy when it has its own dispatch.
  uint64_t workgroups = 1;
  /// True for a wide mat-vec (reaches matvecEfficiency, not full streaming).
  bool isMatvec = false;
  /// A mat-vec over q8_2f codes: it reaches q8MatvecEfficiency (its decode,
  /// not its bytes, bounds it on GPUs measured so far).
  bool quantized = false;
  /// Workgroup barriers the stage's reductions execute in all (e.g. ~10 per
  /// mat-vec row), and the stage's own workgroup size over 256: a barrier of
  /// a narrower workgroup costs proportionally less where threads are fibres.
  uint64_t barriers = 0;
  double ownWidth = 1.0;
  /// Bytes read again from the cache (not from memory), e.g. the input
  /// vectors a mat-vec with an activation reads once per row.
  uint64_t cacheBytes = 0;
};

/// Estimated cost of a dispatch holding `stages`, run in `workgroups`
/// workgroups (fusing a reduction can squeeze a stage into one workgroup).
struct DispatchEstimate {
  double kernelMicros = 0;
  double boundaryMicros = 0;
  double totalMicros() const { return kernelMicros + boundaryMicros; }
};

class CostModel {
public:
  virtual ~CostModel() = default;
  virtual const TargetDesc &target() const = 0;
  /// Time of `stage` inside a dispatch limited to `workgroups` workgroups.
  virtual double stageMicros(const StageCost &stage, uint64_t workgroups) const = 0;
  /// Time of one dispatch holding `stages` (in order, with workgroup barriers
  /// between them), including its boundary.
  virtual DispatchEstimate dispatchMicros(const std::vector<StageCost> &stages,
                                          bool barrierBefore) const = 0;
};

/// Roofline per stage: max(bytes / bandwidth, flops / compute), where the
/// bandwidth scales with the workgroups a stage can use (up to computeUnits),
/// plus one boundary per dispatch.
std::unique_ptr<CostModel> createAnalyticalCostModel(TargetDesc target);

} // namespace kiln::cost

#endif // KILN_COST_COSTMODEL_H
