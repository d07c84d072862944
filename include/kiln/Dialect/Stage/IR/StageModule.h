//===- StageModule.h - The stage-level module's attributes ------*- C++ -*-===//
//
// A stage-level module (docs/pipeline.md) is `func.func @decode` (and
// @prefill) of stage.dispatch ops over buffer arguments. What the plan writer
// needs beyond the stages rides on attributes: each argument's `kiln.buffer`
// (kind, name, slot, byte offset, tensors), the func's `kiln.slots`,
// `kiln.readback`, `kiln.params`, `kiln.device_flags` and `kiln.sampled`.
// convert-kiln-to-stage writes them, the Stage transforms and the plan writer
// read them: their names live here, with the Stage dialect.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_STAGE_IR_STAGEMODULE_H
#define KILN_DIALECT_STAGE_IR_STAGEMODULE_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace kiln::stage {

inline constexpr const char *kBufferAttrName = "kiln.buffer";
inline constexpr const char *kSlotsAttrName = "kiln.slots";
inline constexpr const char *kReadbackAttrName = "kiln.readback";
inline constexpr const char *kParamsAttrName = "kiln.params";
inline constexpr const char *kDeviceFlagsAttrName = "kiln.device_flags";
/// {arg, byte_offset[, draws][, stop_flag]}: where stage.sample leaves the step's
/// token and its log-probability; `draws` (unit) when it also draws at the
/// session's temperature and top-p (its params words below), not only the greedy
/// pick; `stop_flag` (unit) when a continue word follows them (kStopTokenWord).
inline constexpr const char *kSampledAttrName = "kiln.sampled";

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

/// What a logical buffer holds: its `kiln.buffer` `kind` (docs/pipeline.md). The plan's
/// flatbuffer enum is the file format's copy; the plan writer maps one to the other.
enum class BufferKind { Weight, State, Scratch, Params, Readback };

/// The `kind` string of `kind` in a kiln.buffer attribute.
inline const char *bufferKindName(BufferKind kind) {
  switch (kind) {
  case BufferKind::Weight:
    return "weight";
  case BufferKind::State:
    return "state";
  case BufferKind::Scratch:
    return "scratch";
  case BufferKind::Params:
    return "params";
  case BufferKind::Readback:
    return "readback";
  }
  return "scratch";
}

/// The kind named by a kiln.buffer `kind` string, if it names one.
inline std::optional<BufferKind> parseBufferKind(llvm::StringRef name) {
  for (BufferKind kind : {BufferKind::Weight, BufferKind::State, BufferKind::Scratch,
                          BufferKind::Params, BufferKind::Readback})
    if (name == bufferKindName(kind))
      return kind;
  return std::nullopt;
}

/// Byte size of a buffer argument: a static memref of f32, i32 or vector<4xi32>.
inline int64_t bufferBytes(mlir::MemRefType type) {
  mlir::Type element = type.getElementType();
  int64_t bytes = 4;
  if (auto vector = llvm::dyn_cast<mlir::VectorType>(element))
    bytes = vector.getNumElements() * 4;
  return type.getNumElements() * bytes;
}

} // namespace kiln::stage

#endif // KILN_DIALECT_STAGE_IR_STAGEMODULE_H
