//===- StageDialect.h - Kiln's stage dialect --------------------*- C++ -*-===//
#ifndef KILN_DIALECT_STAGE_IR_STAGEDIALECT_H
#define KILN_DIALECT_STAGE_IR_STAGEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "kiln/Dialect/Stage/IR/StageDialect.h.inc"
#include "kiln/Dialect/Stage/IR/StageAttrs.h"

#endif // KILN_DIALECT_STAGE_IR_STAGEDIALECT_H
