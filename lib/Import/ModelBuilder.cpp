//===- ModelBuilder.cpp - Builds a kiln.model op by op --------------------===//

#include "ModelBuilder.h"

#include <cctype>

using namespace mlir;
using namespace kiln::graph;

namespace kiln::import {

ModelBuilder::ModelBuilder(ModuleOp module, StringRef name, Family family,
                           const io::ModelConfig &config,
                           io::WeightFormat format, bool withTopP)
    : loc_(module.getLoc()), decls_(module.getContext()),
      step_(module.getContext()),
      format_(format == io::WeightFormat::F16 ? WeightFormat::f16
                                              : WeightFormat::q8_2f) {
  MLIRContext *ctx = module.getContext();
  OpBuilder top = OpBuilder::atBlockEnd(module.getBody());
  eps_ = top.getF32FloatAttr(static_cast<float>(config.rmsNormEps));
  bool zeroCentered = config.isEmbryo() && config.embryo.zeroCenteredNorm;
  model_ = ModelOp::create(
      top, loc_, top.getStringAttr(name), FamilyAttr::get(ctx, family),
      top.getI64IntegerAttr(config.hiddenSize),
      top.getI64IntegerAttr(config.intermediateSize),
      top.getI64IntegerAttr(config.vocabSize), eps_,
      zeroCentered ? top.getUnitAttr() : UnitAttr());
  Block *body = new Block();
  model_.getBody().push_back(body);
  OpBuilder inModel = OpBuilder::atBlockEnd(body);
  stepOp_ = StepOp::create(inModel, loc_);
  entry_ = new Block();
  stepOp_.getBody().push_back(entry_);
  entry_->addArgument(top.getIndexType(), loc_);
  entry_->addArgument(top.getIndexType(), loc_);
  if (withTopP)
    entry_->addArgument(top.getF32Type(), loc_);
  decls_.setInsertionPoint(stepOp_);
  step_.setInsertionPointToEnd(entry_);
}

RankedTensorType ModelBuilder::vec(int64_t size) {
  return RankedTensorType::get({size}, step_.getF32Type());
}

RankedTensorType ModelBuilder::table(ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, step_.getF32Type());
}

WeightType ModelBuilder::matrix(int64_t rows, int64_t cols) {
  return WeightType::get(step_.getContext(), rows, cols, format_);
}

WeightType ModelBuilder::halfMatrix(int64_t rows, int64_t cols) {
  return WeightType::get(step_.getContext(), rows, cols, WeightFormat::f16);
}

void ModelBuilder::declare(StringRef name, Type type, bool isState) {
  if (!declared_.insert(name).second)
    return;
  if (isState)
    StateDeclOp::create(decls_, loc_, decls_.getStringAttr(name),
                        TypeAttr::get(type));
  else
    WeightDeclOp::create(decls_, loc_, decls_.getStringAttr(name),
                         TypeAttr::get(type));
}

Value ModelBuilder::weight(StringRef name, Type type) {
  declare(name, type, /*isState=*/false);
  return WeightOp::create(step_, loc_, type,
                          FlatSymbolRefAttr::get(step_.getContext(), name));
}

Value ModelBuilder::state(StringRef name, Type type) {
  declare(name, type, /*isState=*/true);
  return StateOp::create(step_, loc_, type,
                         FlatSymbolRefAttr::get(step_.getContext(), name));
}

Value ModelBuilder::matvec(StringRef name, int64_t rows, int64_t cols,
                           Value input) {
  Value w = weight(name, matrix(rows, cols));
  return MatVecOp::create(step_, loc_, vec(rows), w, input);
}

Value ModelBuilder::rmsNorm(StringRef name, Value input, bool zeroCentered) {
  auto type = cast<RankedTensorType>(input.getType());
  Value w = weight(name, type);
  return RmsNormOp::create(step_, loc_, type, input, w, eps_,
                           zeroCentered ? step_.getUnitAttr() : UnitAttr());
}

Value ModelBuilder::add(Value lhs, Value rhs) {
  return AddOp::create(step_, loc_, lhs.getType(), lhs, rhs);
}

ModelOp ModelBuilder::finish(Value logprobs) {
  ReturnOp::create(step_, loc_, logprobs);
  return model_;
}

std::string modelSymbolName(const io::ModelConfig &config) {
  std::string name =
      config.name.empty() ? io::modelFamilyName(config.family) : config.name;
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  if (std::isdigit(static_cast<unsigned char>(name.front())))
    name.insert(name.begin(), '_');
  return name;
}

} // namespace kiln::import
