//===- KilnToStage.h - kiln graph -> stage dispatches -----------*- C++ -*-===//
#ifndef KILN_CONVERSION_KILNTOSTAGE_KILNTOSTAGE_H
#define KILN_CONVERSION_KILNTOSTAGE_KILNTOSTAGE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln {

#define GEN_PASS_DECL_CONVERTKILNTOSTAGE
#include "kiln/Conversion/Passes.h.inc"

/// Replaces the module's kiln.model by `func.func @decode` of stage
/// dispatches on logical buffers (the attributes of
/// kiln/Dialect/Stage/IR/StageModule.h), then plans scratch memory
/// (stage::planMemory). The lowering is
/// a whole-step regrouping (several kiln ops become one stage, buffers are
/// shared by in-place stages), not a set of independent rewrite patterns, so
/// this entry point stands where a populate...Patterns function would.
/// Errors are emitted as diagnostics on the offending kiln op.
/// With `prefillRows` > 1 it also builds `func.func @prefill`, the same step
/// over up to that many prompt rows a call (`kiln.max_rows`; docs/pipeline.md,
/// "Rows"), beside @decode.
mlir::LogicalResult convertKilnToStage(mlir::ModuleOp module, int64_t prefillRows = 0);

} // namespace kiln

#endif // KILN_CONVERSION_KILNTOSTAGE_KILNTOSTAGE_H
