//===- KilnDialect.h - the kiln dialect ------------------------*- C++ -*-===//
#ifndef KILN_DIALECT_KILN_IR_KILNDIALECT_H
#define KILN_DIALECT_KILN_IR_KILNDIALECT_H

#include "kiln/Support/MLIR.h"
#include "mlir/IR/Dialect.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h.inc"

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_H
