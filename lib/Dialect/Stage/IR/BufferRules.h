//===- BufferRules.h - Buffer checks shared by the stage verifiers -*- C++ -*-===//
//
// Every stage kernel indexes its buffers with constants taken from their
// types and binds them as plain storage buffers; these checks state that once
// for StageOps.cpp and DoryFarFieldOps.cpp. Internal to lib/Dialect/Stage/IR.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DIALECT_STAGE_IR_BUFFERRULES_H
#define KILN_LIB_DIALECT_STAGE_IR_BUFFERRULES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"

namespace kiln::stage::detail {

inline int64_t dim(mlir::Value buffer, unsigned index) {
  return llvm::cast<mlir::MemRefType>(buffer.getType()).getDimSize(index);
}

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

} // namespace kiln::stage::detail

#endif // KILN_LIB_DIALECT_STAGE_IR_BUFFERRULES_H
