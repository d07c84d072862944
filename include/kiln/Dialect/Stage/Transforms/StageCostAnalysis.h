//===- StageCostAnalysis.h - Stage ops as cost-model records ----*- C++ -*-===//
//
// The cost model takes plain numbers (kiln/Cost/CostModel.h); this is the one
// place that reads them off stage ops: bytes from the memref operand sizes,
// flops from the op's math, and the workgroups its own kernel would use.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_STAGE_TRANSFORMS_STAGECOSTANALYSIS_H
#define KILN_DIALECT_STAGE_TRANSFORMS_STAGECOSTANALYSIS_H

#include "kiln/Cost/CostModel.h"

#include "mlir/IR/Operation.h"

#include <vector>

namespace kiln::stage {

class DispatchOp;

/// Launch shapes convert-stage-to-gpu uses by default (its pass options).
struct StageCostOptions {
  int64_t rowWorkgroupSize = 64;
  /// The session position attention is priced at: its key and value rings
  /// are read for min(position + 1, ring rows) keys (sinks included).
  /// Negative: a full window, the cost a long session settles at.
  int64_t position = -1;
};

/// Bytes read (every operand the stage reads, weights whole: the worst
/// case for attention windows and closed head clusters), bytes written,
/// flops, and the workgroups of its own kernel.
cost::StageCost stageCostOf(mlir::Operation *stage,
                            const StageCostOptions &options = {});

/// The records of a dispatch's stages, in order.
std::vector<cost::StageCost> dispatchCosts(DispatchOp dispatch,
                                           const StageCostOptions &options = {});

} // namespace kiln::stage

#endif // KILN_DIALECT_STAGE_TRANSFORMS_STAGECOSTANALYSIS_H
