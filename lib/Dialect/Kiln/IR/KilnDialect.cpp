//===- KilnDialect.cpp - kiln dialect registration -----------------------===//

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/KilnTypes.h"

using namespace mlir;
using namespace kiln::graph;

#include "kiln/Dialect/Kiln/IR/KilnDialect.cpp.inc"

void KilnDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"
      >();
  registerTypes();
}
