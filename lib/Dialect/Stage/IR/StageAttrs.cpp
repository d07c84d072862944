//===- StageAttrs.cpp - The stage module's contract attributes ------------===//
//
// Each attribute checks its own fields; the Stage dialect checks where they
// sit (StageDialect.cpp: which attribute a name holds, argument indices in
// range, a buffer's size against its memref).
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Stage/IR/StageDialect.h"
#include "kiln/Dialect/Stage/IR/StageModule.h"

using namespace mlir;

namespace kiln::stage {

namespace {
/// The largest byte offset or size a field may hold: 2^48 (256 TiB), more
/// than any device's memory, so that sums of two such fields never overflow.
constexpr int64_t kMaxBytes = int64_t(1) << 48;
/// The largest params word index (the params buffer is a few words).
constexpr int64_t kMaxWord = int64_t(1) << 24;

/// `value` within [0, most], else an error naming the field and the bound.
LogicalResult atMost(function_ref<InFlightDiagnostic()> emitError, StringRef attr,
                     StringRef field, int64_t value, int64_t most) {
  if (value > most)
    return emitError() << "#stage." << attr << " " << field << " " << value
                       << " is more than " << most;
  return success();
}

LogicalResult nonNegative(function_ref<InFlightDiagnostic()> emitError, StringRef attr,
                          StringRef field, int64_t value) {
  if (value < 0)
    return emitError() << "#stage." << attr << " " << field << " " << value
                       << " is negative";
  return success();
}

LogicalResult wordAligned(function_ref<InFlightDiagnostic()> emitError, StringRef attr,
                          StringRef field, int64_t value) {
  if (failed(nonNegative(emitError, attr, field, value)))
    return failure();
  if (value % 4 != 0)
    return emitError() << "#stage." << attr << " " << field << " " << value
                       << " is not a multiple of 4 bytes";
  return success();
}
} // namespace

LogicalResult WeightTensorAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       StringRef name, StringRef dtype,
                                       ArrayRef<int64_t> shape, StringRef layout,
                                       int64_t byteOffset, int64_t rowPitchBytes) {
  if (name.empty() || dtype.empty() || layout.empty())
    return emitError() << "#stage.tensor needs a name, a dtype and a layout";
  if (shape.empty())
    return emitError() << "#stage.tensor '" << name << "' has no dimensions";
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitError() << "#stage.tensor '" << name << "': dimension " << dim
                         << " is not positive";
  for (int64_t dim : shape)
    if (failed(atMost(emitError, "tensor", "dimension", dim, kMaxBytes)))
      return failure();
  if (failed(wordAligned(emitError, "tensor", "byte_offset", byteOffset)) ||
      failed(atMost(emitError, "tensor", "byte_offset", byteOffset, kMaxBytes)) ||
      failed(atMost(emitError, "tensor", "row_pitch_bytes", rowPitchBytes, kMaxBytes)))
    return failure();
  return nonNegative(emitError, "tensor", "row_pitch_bytes", rowPitchBytes);
}

LogicalResult BufferAttr::verify(function_ref<InFlightDiagnostic()> emitError, BufferKind kind,
                                 StringRef name, std::optional<int64_t> slot,
                                 int64_t byteOffset, int64_t byteSize,
                                 ArrayRef<WeightTensorAttr> tensors, int64_t rows) {
  if (name.empty())
    return emitError() << "#stage.buffer needs a name";
  if (rows < 1 || rows > kMaxProgramRows)
    return emitError() << "#stage.buffer '" << name << "': rows " << rows
                       << " is not in [1, " << kMaxProgramRows << "]";
  if (rows > 1 && kind != BufferKind::Scratch && kind != BufferKind::Readback)
    return emitError() << "#stage.buffer '" << name << "': only an activation (scratch or "
                       << "readback) holds a row per call row, not a "
                       << stringifyBufferKind(kind) << " buffer";
  if (slot && failed(nonNegative(emitError, "buffer", "slot", *slot)))
    return failure();
  if (failed(nonNegative(emitError, "buffer", "byte_offset", byteOffset)) ||
      failed(atMost(emitError, "buffer", "byte_offset", byteOffset, kMaxBytes)) ||
      failed(atMost(emitError, "buffer", "byte_size", byteSize, kMaxBytes)))
    return failure();
  if (byteSize <= 0 || byteSize % 4 != 0)
    return emitError() << "#stage.buffer '" << name << "': byte_size " << byteSize
                       << " is not a positive number of 4-byte words";
  if (kind == BufferKind::Weight && tensors.empty())
    return emitError() << "#stage.buffer '" << name
                       << "': a weight buffer lists the tensors placed in it";
  if (kind != BufferKind::Weight && !tensors.empty())
    return emitError() << "#stage.buffer '" << name << "': only a weight buffer holds tensors, "
                       << "not a " << stringifyBufferKind(kind) << " buffer";
  return success();
}

LogicalResult SlotAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t slot,
                               BufferKind, int64_t byteSize) {
  if (failed(nonNegative(emitError, "slot", "slot", slot)) ||
      failed(atMost(emitError, "slot", "byte_size", byteSize, kMaxBytes)))
    return failure();
  return nonNegative(emitError, "slot", "byte_size", byteSize);
}

LogicalResult ReadbackAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t arg,
                                   int64_t byteOffset, int64_t count, StringRef) {
  if (failed(nonNegative(emitError, "readback", "arg", arg)) ||
      failed(wordAligned(emitError, "readback", "byte_offset", byteOffset)) ||
      failed(atMost(emitError, "readback", "byte_offset", byteOffset, kMaxBytes)) ||
      failed(atMost(emitError, "readback", "count", count, kMaxBytes)))
    return failure();
  if (count <= 0)
    return emitError() << "#stage.readback count " << count << " is not positive";
  return success();
}

LogicalResult ParamFieldAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                     StringRef name, int64_t word, StringRef rule,
                                     std::optional<int64_t> n, std::optional<int64_t> row,
                                     Attribute) {
  if (name.empty() || rule.empty())
    return emitError() << "#stage.param needs a name and a rule";
  if (failed(nonNegative(emitError, "param", "word", word)) ||
      failed(atMost(emitError, "param", "word", word, kMaxWord)))
    return failure();
  // n and row are 32-bit fields of the plan.
  if (n && (failed(nonNegative(emitError, "param", "n", *n)) ||
            failed(atMost(emitError, "param", "n", *n, 0xffffffffll))))
    return failure();
  if (row && (failed(nonNegative(emitError, "param", "row", *row)) ||
              failed(atMost(emitError, "param", "row", *row, 0xffffffffll))))
    return failure();
  return success();
}

LogicalResult DeviceFlagAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                     StringRef name, int64_t arg, int64_t byteOffset,
                                     int64_t resetValue) {
  if (name.empty())
    return emitError() << "#stage.device_flag needs a name";
  if (failed(nonNegative(emitError, "device_flag", "arg", arg)) ||
      failed(wordAligned(emitError, "device_flag", "byte_offset", byteOffset)) ||
      failed(atMost(emitError, "device_flag", "byte_offset", byteOffset, kMaxBytes)))
    return failure();
  if (resetValue < 0 || resetValue > 0xffffffffll)
    return emitError() << "#stage.device_flag reset_value " << resetValue
                       << " is not a 32-bit word";
  return success();
}

LogicalResult SampledAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t arg,
                                  int64_t byteOffset, bool, bool) {
  if (failed(nonNegative(emitError, "sampled", "arg", arg)) ||
      failed(atMost(emitError, "sampled", "byte_offset", byteOffset, kMaxBytes)))
    return failure();
  return wordAligned(emitError, "sampled", "byte_offset", byteOffset);
}

} // namespace kiln::stage
