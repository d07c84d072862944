//===- FusionReport.h - What fusion decided, as text ------------*- C++ -*-===//
//
// The dispatches of each function after --kiln-fuse-dispatches, their
// stages, fused form and estimated µs, and the per-token total. Built from
// the IR alone (the pass leaves its estimates as attributes), so
// kiln-compile prints it for --fusion-report without the pass handing
// anything over.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_STAGE_TRANSFORMS_FUSIONREPORT_H
#define KILN_DIALECT_STAGE_TRANSFORMS_FUSIONREPORT_H

#include "kiln/Dialect/Stage/IR/StageModule.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace kiln::stage {

struct DispatchReport {
  std::string name;
  std::string form;                ///< "" (one stage), one_workgroup, concurrent
  std::vector<std::string> stages; ///< op names without the dialect prefix
  double micros = -1;              ///< negative: no estimate
  bool firstCallOnly = false;      ///< every stage FirstCallOnly: not a token's cost
};

struct FunctionReport {
  std::string function;
  std::vector<DispatchReport> dispatches;
  /// The estimates of the dispatches a token runs (first-call ones left out).
  double totalMicros() const;
};

struct FusionReport {
  std::string target;
  std::vector<FunctionReport> functions;
};

FusionReport buildFusionReport(mlir::ModuleOp module);

/// One line per dispatch, then the per-token total of each function (a
/// dispatch that runs in a session's first call only is marked `first_call`
/// and left out of the total).
std::string formatFusionReport(const FusionReport &report);

} // namespace kiln::stage

#endif // KILN_DIALECT_STAGE_TRANSFORMS_FUSIONREPORT_H
