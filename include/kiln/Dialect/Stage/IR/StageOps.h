//===- StageOps.h - Kiln's stage ops ----------------------------*- C++ -*-===//
#ifndef KILN_DIALECT_STAGE_IR_STAGEOPS_H
#define KILN_DIALECT_STAGE_IR_STAGEOPS_H

#include "kiln/Dialect/Stage/IR/StageDialect.h"
#include "kiln/Dialect/Stage/IR/StageTraits.h"

#define GET_OP_CLASSES
#include "kiln/Dialect/Stage/IR/StageOps.h.inc"

#endif // KILN_DIALECT_STAGE_IR_STAGEOPS_H
