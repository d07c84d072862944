//===- ModelBuilder.h - Builds a kiln.model op by op ------------*- C++ -*-===//
//
// Shared by the two family importers. Declarations are made on first use, so
// the declaration list follows the order the step reads weights and state in
// (the order of the hand-written examples/*.mlir).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_MODELBUILDER_H
#define KILN_LIB_IMPORT_MODELBUILDER_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/IO/WeightSpec.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringSet.h"

#include <string>

namespace kiln::import {

class ModelBuilder {
public:
  /// Creates `kiln.model` at the end of `module` with an empty step whose
  /// entry block takes (token, position) and, when `withTopP`, top_p.
  ModelBuilder(mlir::ModuleOp module, llvm::StringRef name,
               kiln::graph::Family family, const io::ModelConfig &config,
               io::WeightFormat format, bool withTopP);

  mlir::OpBuilder &builder() { return step_; }
  mlir::Location loc() const { return loc_; }
  mlir::Value token() const { return entry_->getArgument(0); }
  mlir::Value position() const { return entry_->getArgument(1); }
  mlir::Value topP() const { return entry_->getArgument(2); }
  mlir::FloatAttr eps() const { return eps_; }

  // Types.
  mlir::RankedTensorType vec(int64_t size);
  mlir::RankedTensorType table(llvm::ArrayRef<int64_t> shape);
  kiln::graph::WeightType matrix(int64_t rows, int64_t cols);
  kiln::graph::WeightType halfMatrix(int64_t rows, int64_t cols);

  /// `kiln.weight @name`, declaring it on first use.
  mlir::Value weight(llvm::StringRef name, mlir::Type type);
  /// `kiln.state @name`, declaring it on first use.
  mlir::Value state(llvm::StringRef name, mlir::Type type);

  /// `kiln.matvec` of the matrix weight `name` ([rows, cols], model format).
  mlir::Value matvec(llvm::StringRef name, int64_t rows, int64_t cols,
                     mlir::Value input);
  /// `kiln.rms_norm` with the weight `name`.
  mlir::Value rmsNorm(llvm::StringRef name, mlir::Value input,
                      bool zeroCentered);
  mlir::Value add(mlir::Value lhs, mlir::Value rhs);

  /// Emits `kiln.return` and hands the model back.
  kiln::graph::ModelOp finish(mlir::Value logprobs);

private:
  void declare(llvm::StringRef name, mlir::Type type, bool isState);

  mlir::Location loc_;
  kiln::graph::ModelOp model_;
  kiln::graph::StepOp stepOp_;
  mlir::Block *entry_ = nullptr;
  mlir::OpBuilder decls_; // before the step
  mlir::OpBuilder step_;  // inside the step
  kiln::graph::WeightFormat format_;
  mlir::FloatAttr eps_;
  llvm::StringSet<> declared_;
};

/// The kiln.model symbol for a config name: "embryo-tiny" -> "embryo_tiny".
std::string modelSymbolName(const io::ModelConfig &config);

/// Builds the step of each family into `builder`'s model.
void buildEmbryoStep(ModelBuilder &builder, const io::ModelConfig &config);
void buildDoryStep(ModelBuilder &builder, const io::ModelConfig &config);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_MODELBUILDER_H
