//===- BufferRules.h - Checks shared by the stage verifiers -----*- C++ -*-===//
//
// Every stage kernel indexes its buffers with constants taken from their
// types and binds them as plain storage buffers; these checks (and the
// params word and scale rules several stages share) state that once for the
// verifiers of this folder. Internal to lib/Dialect/Stage/IR.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DIALECT_STAGE_IR_BUFFERRULES_H
#define KILN_LIB_DIALECT_STAGE_IR_BUFFERRULES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

namespace kiln::stage::detail {

inline int64_t dim(mlir::Value buffer, unsigned index) {
  return llvm::cast<mlir::MemRefType>(buffer.getType()).getDimSize(index);
}

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

inline int64_t elements(mlir::Value buffer) {
  return llvm::cast<mlir::MemRefType>(buffer.getType()).getNumElements();
}

/// Shapes static, layouts identity, nothing empty.
inline mlir::LogicalResult verifyBuffers(mlir::Operation *op) {
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    auto type = llvm::dyn_cast<mlir::MemRefType>(operand.getType());
    if (!type)
      continue;
    if (!type.hasStaticShape())
      return op->emitOpError("operand #")
             << index << " must have a static shape, got " << type;
    if (!type.getLayout().isIdentity())
      return op->emitOpError("operand #")
             << index << " must have the identity layout, got " << type;
    if (type.getNumElements() == 0)
      return op->emitOpError("operand #")
             << index << " must not be empty, got " << type;
  }
  return mlir::success();
}

/// `buffer` holds exactly `expected` elements; the error names `rule`.
inline mlir::LogicalResult expectSize(mlir::Operation *op, llvm::StringRef name,
                                      mlir::Value buffer, int64_t expected,
                                      llvm::StringRef rule) {
  int64_t actual = elements(buffer);
  if (actual != expected)
    return op->emitOpError() << name << " has " << actual
                             << " elements, expected " << expected << " ("
                             << rule << ")";
  return mlir::success();
}

/// params holds token, position, gate, spare at least, and the word a stage
/// reads its position from.
inline mlir::LogicalResult verifyPositionWord(mlir::Operation *op, mlir::Value params, int64_t word) {
  if (dim(params, 0) < 4)
    return op->emitOpError("params must hold at least 4 words (token, "
                           "position, gate, spare), got ")
           << dim(params, 0);
  if (word < 0 || word >= dim(params, 0))
    return op->emitOpError("position_word ")
           << word << " is outside params (" << dim(params, 0) << " words)";
  return mlir::success();
}

inline mlir::LogicalResult verifyScale(mlir::Operation *op, float scale) {
  if (!std::isfinite(scale) || scale <= 0.0f)
    return op->emitOpError("scale must be finite and positive, got ") << scale;
  return mlir::success();
}

/// `q` (named `name`) holds whole heads of hd, and their count is a multiple of kvh.
inline mlir::FailureOr<int64_t> queryHeads(mlir::Operation *op, llvm::StringRef name, mlir::Value q, int64_t kvh, int64_t hd) {
  if (elements(q) % hd != 0)
    return op->emitOpError() << name << " has "
           << elements(q) << " values, not a whole number of heads of " << hd,
           mlir::failure();
  int64_t qh = elements(q) / hd;
  if (qh % kvh != 0)
    return op->emitOpError("query heads (")
           << qh << ") must be a multiple of KV heads (" << kvh << ")",
           mlir::failure();
  return qh;
}


/// Sink keys or values: [kvh, ns, hd].
inline mlir::LogicalResult verifySinks(mlir::Operation *op, llvm::StringRef name,
                                       mlir::Value sinks, int64_t kvh, int64_t hd) {
  if (dim(sinks, 0) != kvh || dim(sinks, 2) != hd)
    return op->emitOpError() << name << " must be [kvh = " << kvh
                             << ", ns, hd = " << hd << "], got " << sinks.getType();
  return mlir::success();
}

/// The scores stage.key_scores leaves for an attention stage: a row of at
/// least `keys` per query head.
inline mlir::LogicalResult verifyScores(mlir::Operation *op, mlir::Value scores,
                                        int64_t qh, int64_t keys) {
  if (dim(scores, 0) != qh || dim(scores, 1) < keys)
    return op->emitOpError("scores must be [qh = ")
           << qh << ", at least sinks + window = " << keys << "], got "
           << scores.getType();
  return mlir::success();
}

} // namespace kiln::stage::detail

#endif // KILN_LIB_DIALECT_STAGE_IR_BUFFERRULES_H
