//===- KilnTypes.cpp - kiln types, their verifiers and predicates --------===//

#include "kiln/Dialect/Kiln/IR/KilnTypes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln::graph;

#include "kiln/Dialect/Kiln/IR/KilnEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnTypes.cpp.inc"

void KilnDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "kiln/Dialect/Kiln/IR/KilnTypes.cpp.inc"
      >();
}

// Any head dim: the kernels walk heads element by element (docs/config.md).
static LogicalResult checkHeadDim(function_ref<InFlightDiagnostic()> emitError,
                                  StringRef what, int64_t headDim) {
  if (headDim < 1)
    return emitError() << what << " (" << headDim << ") must be >= 1";
  return success();
}

static LogicalResult checkPositive(function_ref<InFlightDiagnostic()> emitError,
                                   StringRef what, int64_t value) {
  if (value < 1)
    return emitError() << what << " (" << value << ") must be >= 1";
  return success();
}

LogicalResult WeightType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t rows, int64_t cols, WeightFormat) {
  if (failed(checkPositive(emitError, "weight rows", rows)) ||
      failed(checkPositive(emitError, "weight cols", cols)))
    return failure();
  return success();
}

LogicalResult KvRingType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t kvHeads, int64_t capacity,
                                 int64_t headDim) {
  if (failed(checkPositive(emitError, "kv_ring kv_heads", kvHeads)) ||
      failed(checkPositive(emitError, "kv_ring capacity (window)", capacity)) ||
      failed(checkHeadDim(emitError, "kv_ring head_dim", headDim)))
    return failure();
  return success();
}

LogicalResult GdnStateType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t vHeads, int64_t kDim, int64_t vDim) {
  if (failed(checkPositive(emitError, "gdn_state v_heads", vHeads)) ||
      failed(checkHeadDim(emitError, "gdn_state k_dim", kDim)) ||
      failed(checkHeadDim(emitError, "gdn_state v_dim", vDim)))
    return failure();
  return success();
}

LogicalResult ConvRingType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t channels, int64_t taps) {
  if (failed(checkPositive(emitError, "conv_ring channels", channels)) ||
      failed(checkPositive(emitError, "conv_ring taps", taps)))
    return failure();
  return success();
}

LogicalResult FarFieldType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t qHeads, int64_t kvHeads,
                                   int64_t landmarks, int64_t headDim) {
  if (failed(checkPositive(emitError, "far_field q_heads", qHeads)) ||
      failed(checkPositive(emitError, "far_field kv_heads", kvHeads)) ||
      failed(checkHeadDim(emitError, "far_field head_dim", headDim)))
    return failure();
  if (qHeads % kvHeads != 0)
    return emitError() << "far_field q_heads (" << qHeads
                       << ") must be a multiple of kv_heads (" << kvHeads << ")";
  // The seed keeps a landmark's weights in a 32-entry array per thread.
  if (landmarks < 1 || landmarks > 32)
    return emitError() << "far_field landmarks (" << landmarks
                       << ") must be in 1..32";
  return success();
}

LogicalResult LoopStateType::verify(function_ref<InFlightDiagnostic()> emitError,
                                    int64_t hidden) {
  return checkPositive(emitError, "loop_state hidden", hidden);
}

bool kiln::graph::isActivationType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 1 && tensor.hasStaticShape() &&
         tensor.getElementType().isF32();
}

bool kiln::graph::isTableType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() >= 1 && tensor.hasStaticShape() &&
         tensor.getElementType().isF32();
}

bool kiln::graph::isMatrixType(Type type) {
  if (isa<WeightType>(type))
    return true;
  return isTableType(type) && cast<RankedTensorType>(type).getRank() == 2;
}

bool kiln::graph::isStateType(Type type) {
  return isa<KvRingType, GdnStateType, ConvRingType, FarFieldType,
             LoopStateType>(type);
}

std::pair<int64_t, int64_t> kiln::graph::getMatrixShape(Type matrixType) {
  if (auto weight = dyn_cast<WeightType>(matrixType))
    return {weight.getRows(), weight.getCols()};
  auto tensor = cast<RankedTensorType>(matrixType);
  return {tensor.getDimSize(0), tensor.getDimSize(1)};
}

int64_t kiln::graph::getElementCount(Type tensorType) {
  return cast<RankedTensorType>(tensorType).getNumElements();
}
