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

/// Names of the attributes of the stage-level module (docs/pipeline.md).
inline constexpr const char *kBufferAttrName = "kiln.buffer";
inline constexpr const char *kReadbackAttrName = "kiln.readback";
inline constexpr const char *kParamsAttrName = "kiln.params";
inline constexpr const char *kDeviceFlagsAttrName = "kiln.device_flags";
/// {arg, byte_offset}: where stage.sample_greedy leaves the step's greedy token
/// and its log-probability (docs/pipeline.md).
inline constexpr const char *kSampledAttrName = "kiln.sampled";

/// Replaces the module's kiln.model by `func.func @decode` of stage
/// dispatches on logical buffers, then plans scratch memory. The lowering is
/// a whole-step regrouping (several kiln ops become one stage, buffers are
/// shared by in-place stages), not a set of independent rewrite patterns, so
/// this entry point stands where a populate...Patterns function would.
/// Errors are emitted as diagnostics on the offending kiln op.
mlir::LogicalResult convertKilnToStage(mlir::ModuleOp module);

/// Assigns every scratch argument of `func` a physical slot by liveness over
/// the order of its stage.dispatch ops (docs/memory.md) and fills in the
/// `slot`/`byte_offset` fields of the arguments' kiln.buffer attributes.
/// Non-scratch buffers get a slot each. Returns the number of slots.
int64_t planMemory(mlir::func::FuncOp func);

} // namespace kiln

#endif // KILN_CONVERSION_KILNTOSTAGE_KILNTOSTAGE_H
