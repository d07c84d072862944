//===- KilnTypes.h - kiln weight and state types ---------------*- C++ -*-===//
#ifndef KILN_DIALECT_KILN_IR_KILNTYPES_H
#define KILN_DIALECT_KILN_IR_KILNTYPES_H

#include "kiln/Support/MLIR.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"

#include "kiln/Dialect/Kiln/IR/KilnEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnTypes.h.inc"

namespace kiln::graph {

/// A static 1-D tensor of f32: the type of every activation.
bool isActivationType(Type type);
/// A static tensor of f32 of rank >= 1: small weights (norms, taps, sinks, centres).
bool isTableType(Type type);
/// A !kiln.weight or a static 2-D f32 tensor: anything kiln.matvec multiplies by.
bool isMatrixType(Type type);
/// One of the kiln state types (kv_ring, gdn_state, conv_ring, far_field, loop_state).
bool isStateType(Type type);

/// [rows, cols] of a matrix type (isMatrixType must hold).
std::pair<int64_t, int64_t> getMatrixShape(Type matrixType);
/// Element count of a static tensor type.
int64_t getElementCount(Type tensorType);

} // namespace kiln::graph

#endif // KILN_DIALECT_KILN_IR_KILNTYPES_H
