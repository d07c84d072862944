//===- StageModule.h - The stage-level module's attributes ------*- C++ -*-===//
//
// A stage-level module (docs/pipeline.md) is `func.func @decode` (and
// @prefill) of stage.dispatch ops over buffer arguments. What the plan writer
// needs beyond the stages rides on the typed attributes of StageAttrs.td:
// each argument's `stage.buffer`, the func's `stage.slots`, `stage.readback`,
// `stage.params`, `stage.device_flags` and `stage.sampled`.
// convert-kiln-to-stage writes them, the Stage transforms and the plan writer
// read them, the Stage dialect verifies them: their names live here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_STAGE_IR_STAGEMODULE_H
#define KILN_DIALECT_STAGE_IR_STAGEMODULE_H

#include "kiln/Dialect/Stage/IR/StageDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace kiln::stage {

/// BufferAttr on each argument of a stage program.
inline constexpr const char *kBufferAttrName = "stage.buffer";
/// The program's memory plan: an array of SlotAttr (kiln-plan-memory).
inline constexpr const char *kSlotsAttrName = "stage.slots";
/// ReadbackAttr: what the host reads after a step.
inline constexpr const char *kReadbackAttrName = "stage.readback";
/// An array of ParamFieldAttr: the params words beyond the fixed three.
inline constexpr const char *kParamsAttrName = "stage.params";
/// An array of DeviceFlagAttr.
inline constexpr const char *kDeviceFlagsAttrName = "stage.device_flags";
/// SampledAttr: where stage.sample leaves the step's token and its
/// log-probability (and whether it draws and writes a continue word).
inline constexpr const char *kSampledAttrName = "stage.sampled";

/// f64 on every dispatch after kiln-fuse-dispatches (and on the launch it
/// becomes): kernel + boundary, µs.
inline constexpr const char *kEstimatedMicrosAttr = "stage.estimated_us";
/// Unit attribute on a launch whose stages all act only in a session's first
/// call (FirstCallOnly, StageTraits.h): the plan writer marks its dispatch
/// DispatchCalls::First.
inline constexpr const char *kFirstCallOnlyAttr = "stage.first_call_only";
/// i64 array on a launch whose kernel prefetches (stage.prefetch): the
/// kernel arguments only its prefetches bind. The plan writer leaves them out
/// of a call's bytes, which counts each read once.
inline constexpr const char *kPrefetchOnlyArgsAttr = "stage.prefetch_only_args";
/// String on a launch: the name of the dispatch it came from, where its kernel
/// may be another dispatch's (identical kernels are merged); the plan writer
/// labels the dispatch with it.
inline constexpr const char *kDispatchLabelAttr = "stage.label";
/// String on the module after kiln-fuse-dispatches: the cost target the
/// estimates are for.
inline constexpr const char *kTargetNameAttr = "stage.cost_target";

/// The params words stage.sample's draw reads (f32 bits, f32 bits, u32); the
/// plan fields Temperature, TopP and RandomU32 the host writes there.
inline constexpr int64_t kTemperatureWord = 3;
inline constexpr int64_t kTopPWord = 4;
inline constexpr int64_t kRandomWord = 5;
/// The params word holding the session's stop token (plan field StopToken), which
/// stage.sample compares its pick with when it writes a continue word.
inline constexpr int64_t kStopTokenWord = 6;
/// The params word holding the session's head top-p (plan field HeadTopP), which
/// stage.head_rows reads when its params hold it.
inline constexpr int64_t kHeadTopPWord = 7;

/// The func attribute of a multi-row program (`@prefill`): the rows one call
/// carries (docs/pipeline.md, "Rows"). A func without it carries one.
inline constexpr const char *kMaxRowsAttrName = "kiln.max_rows";
/// The most rows a multi-row program's call may carry.
inline constexpr int64_t kMaxProgramRows = 1024;
/// A multi-row program's params words after the decode words: the call's row
/// count (plan rule RowCount), then the token of each row (rule Tokens).
inline constexpr int64_t kRowCountWord = 8;
inline constexpr int64_t kFirstTokenWord = 9;

/// Rows one call of `func` carries: its kiln.max_rows, else 1.
inline int64_t programRows(mlir::Operation *func) {
  auto rows = func->getAttrOfType<mlir::IntegerAttr>(kMaxRowsAttrName);
  return rows ? rows.getInt() : 1;
}

/// The placement of argument `i` of `func`, if it has one.
inline BufferAttr bufferAttrOf(mlir::FunctionOpInterface func, unsigned i) {
  return func.getArgAttrOfType<BufferAttr>(i, kBufferAttrName);
}

/// Byte size of a buffer argument: a static memref of f32, i32 or vector<4xi32>.
inline int64_t bufferBytes(mlir::MemRefType type) {
  mlir::Type element = type.getElementType();
  int64_t bytes = 4;
  if (auto vector = llvm::dyn_cast<mlir::VectorType>(element))
    bytes = vector.getNumElements() * 4;
  return type.getNumElements() * bytes;
}

/// Rows a buffer holds (its `stage.buffer`'s `rows`): above 1 only for an
/// activation of a multi-row program, whose stages see one row's type.
inline int64_t bufferRows(mlir::Value buffer) {
  auto arg = llvm::dyn_cast<mlir::BlockArgument>(buffer);
  if (!arg)
    return 1;
  auto func = llvm::dyn_cast<mlir::FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!func || arg.getOwner() != &func.getFunctionBody().front())
    return 1;
  BufferAttr attr = bufferAttrOf(func, arg.getArgNumber());
  return attr ? attr.getRows() : 1;
}

} // namespace kiln::stage

#endif // KILN_DIALECT_STAGE_IR_STAGEMODULE_H
