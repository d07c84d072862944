//===- ConfigImporter.h - Model config -> kiln module -----------*- C++ -*-===//
//
// Builds the kiln graph (docs/dialect.md) of one decode step from a model
// config (docs/config.md): weight and state declarations named as in
// docs/weights.md, then the step, for both families and every feature.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORT_CONFIGIMPORTER_H
#define KILN_IMPORT_CONFIGIMPORTER_H

#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/WeightSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace kiln {

/// Module attributes the importer sets and the later passes read
/// (docs/pipeline.md): they carry what the kiln.model op does not hold.
inline constexpr const char *kFamilyAttrName = "kiln.family";
inline constexpr const char *kVocabSizeAttrName = "kiln.vocab_size";
inline constexpr const char *kMaxPositionAttrName = "kiln.max_position";
inline constexpr const char *kWeightFormatAttrName = "kiln.weight_format";
inline constexpr const char *kConfigAttrName = "kiln.config";

/// Imports `config` into a new builtin module holding one `kiln.model` whose
/// matrices use `format`. The module verifies. On failure (a config that
/// breaks a rule of docs/config.md, or IR that does not verify) returns null
/// and writes the reason into `*errorMessage` when it is given.
mlir::OwningOpRef<mlir::ModuleOp>
importModelConfig(mlir::MLIRContext &context, const io::ModelConfig &config,
                  io::WeightFormat format, std::string *errorMessage);

} // namespace kiln

#endif // KILN_IMPORT_CONFIGIMPORTER_H
