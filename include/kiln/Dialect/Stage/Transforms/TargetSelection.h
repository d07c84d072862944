//===- TargetSelection.h - Which target descriptor a module is for -*- C++ -*-===//
//
// A module states its target on the command line or in itself (HOUSE.md
// habit 12): an explicit file wins, then a name looked up in a folder of
// descriptors, then the module attribute `kiln.target` (a name, or a
// dictionary holding the descriptor's JSON fields, for self-contained tests).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_STAGE_TRANSFORMS_TARGETSELECTION_H
#define KILN_DIALECT_STAGE_TRANSFORMS_TARGETSELECTION_H

#include "kiln/Cost/TargetDesc.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace kiln::stage {

struct TargetChoice {
  std::string file;      ///< a descriptor path; wins when set
  std::string name;      ///< looked up as <directory>/<name>.json
  std::string directory; ///< where names are looked up
};

/// The folder of shipped descriptors: <prefix>/share/kiln/targets for an installed tool,
/// else targets/ of the source tree.
std::string defaultTargetDirectory();

/// The descriptor for `module`, or an error naming what was missing or wrong.
io::Expected<cost::TargetDesc> selectTarget(mlir::ModuleOp module,
                                            const TargetChoice &choice);

/// selectTarget for the pass `pass`: a failure is reported on `module` as
/// "<pass>: <message>" (the pass then signals failure).
mlir::FailureOr<cost::TargetDesc> selectTargetFor(mlir::ModuleOp module,
                                                  const TargetChoice &choice,
                                                  llvm::StringRef pass);

} // namespace kiln::stage

#endif // KILN_DIALECT_STAGE_TRANSFORMS_TARGETSELECTION_H
