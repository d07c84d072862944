//===- Passes.h - Passes on Kiln's stage level ------------------*- C++ -*-===//
#ifndef KILN_DIALECT_STAGE_TRANSFORMS_PASSES_H
#define KILN_DIALECT_STAGE_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <string>

/// Where `target=<name>` is looked up unless `target-dir` says otherwise
/// (the source tree's targets/, set by CMake).
#ifndef KILN_DEFAULT_TARGET_DIR
#define KILN_DEFAULT_TARGET_DIR "targets"
#endif

namespace kiln::stage {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/Stage/Transforms/Passes.h.inc"

} // namespace kiln::stage

#endif // KILN_DIALECT_STAGE_TRANSFORMS_PASSES_H
