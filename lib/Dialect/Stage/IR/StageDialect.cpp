//===- StageDialect.cpp - Kiln's stage dialect ----------------------------===//
#include "kiln/Dialect/Stage/IR/StageDialect.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln::stage;

#include "kiln/Dialect/Stage/IR/StageDialect.cpp.inc"
#include "kiln/Dialect/Stage/IR/StageEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Stage/IR/StageAttrs.cpp.inc"

void StageDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Stage/IR/StageOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/Dialect/Stage/IR/StageAttrs.cpp.inc"
      >();
}
