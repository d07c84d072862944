//===- LowerCommon.cpp - The walk, and the ops both families use ----------===//

#include "Lowering.h"

#include "kiln/Conversion/KilnToStage/KilnToStage.h"
#include "kiln/Dialect/Stage/IR/StageModule.h"

#include "llvm/ADT/TypeSwitch.h"

#include <tuple>

using namespace mlir;

namespace kiln::lowering {

Lowering::Lowering(ModuleOp module, kg::ModelOp model, int64_t rows, int64_t ringRows)
    : module_(module), model_(model), builder_(module.getContext()), rows_(rows),
      ringRows_(ringRows) {}

InFlightDiagnostic Lowering::refuse(Operation *op, const Twine &why) {
  return op->emitOpError("cannot be lowered to stages: ") << why;
}

std::string Lowering::kernelName(StringRef what) {
  std::string name;
  for (char c : what)
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  int &count = kernelNames_[name];
  if (count++ > 0)
    name += "_" + std::to_string(count - 1);
  return name;
}

OpBuilder Lowering::dispatch(StringRef name) {
  // After the first exit test every dispatch of the call is skipped once
  // the flag is up (docs/stages.md, Dory loop edges).
  auto op = skipping_ ? stage::DispatchOp::create(builder_, model_.getLoc(),
                                                  kernelName(name), exitFlag_,
                                                  /*skipWord=*/0)
                      : stage::DispatchOp::create(builder_, model_.getLoc(),
                                                  kernelName(name));
  return OpBuilder::atBlockEnd(&op.getBody().front());
}

LogicalResult Lowering::run() {
  MLIRContext *ctx = module_.getContext();
  builder_.setInsertionPointToEnd(module_.getBody());
  func_ = func::FuncOp::create(builder_, model_.getLoc(), rows_ > 1 ? "prefill" : "decode",
                               builder_.getFunctionType({}, {}));
  Block *entry = func_.addEntryBlock();
  builder_.setInsertionPointToEnd(entry);
  vocab_ = static_cast<int64_t>(model_.getVocab());
  // Words 0-2 token, position, head gate; 3-6 stage.sample's temperature,
  // top_p, random word and stop token; 7 stage.head_rows' head top-p; a
  // multi-row call's row count and its rows' tokens after them.
  int64_t words = rows_ > 1 ? stage::kFirstTokenWord + rows_ : 8;
  params_ = addArgument(MemRefType::get({words}, IntegerType::get(ctx, 32)),
                        {BufferKind::Params, "params", {}});
  if (failed(lowerBlock(model_.getStep().getBody().front())))
    return failure();
  func::ReturnOp::create(builder_, model_.getLoc());
  finish();
  return success();
}

LogicalResult Lowering::lowerBlock(Block &block) {
  for (Operation &op : block)
    if (failed(lowerOp(&op)))
      return failure();
  return success();
}

/// Ops that a later op emits as part of its stage: check now that the later
/// op is there, so nothing is silently dropped.
static LogicalResult checkConsumedBy(Operation *op, StringRef stage,
                                     function_ref<bool(Operation *)> ok) {
  for (Operation *user : op->getUsers())
    if (!ok(user))
      return op->emitOpError("cannot be lowered to stages: it is computed "
                             "inside ")
             << stage << ", so its result may only feed that stage, not '"
             << user->getName() << "'";
  return success();
}

LogicalResult Lowering::lowerOp(Operation *op) {
  if (deferred_.contains(op))
    return success();
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<kg::WeightOp, kg::StateOp>([](auto) { return success(); })
      .Case([&](kg::EmbedOp o) { return lowerEmbed(o); })
      .Case([&](kg::RmsNormOp o) { return lowerRmsNorm(o); })
      .Case([&](kg::MatVecOp o) { return lowerMatVec(o); })
      .Case<kg::AddOp, kg::MulOp>([&](Operation *o) { return lowerBinary(o); })
      .Case([&](kg::SwiGluOp o) { return lowerSwiGlu(o); })
      .Case([&](kg::ReturnOp o) { return lowerReturn(o); })
      .Case([&](kg::ConvRingStepOp o) { return lowerConvRing(o); })
      .Case([&](kg::SiluOp o) {
        return refuse(o, "no stage computes a lone silu; it must follow a "
                         "kiln.conv_ring_step (stage.conv_ring applies it)");
      })
      .Case([&](kg::GdnGatesOp o) {
        return checkConsumedBy(o, "stage.gdn_step", [](Operation *u) {
          return isa<kg::GdnStepOp>(u);
        });
      })
      .Case([&](kg::GdnStepOp o) -> LogicalResult {
        if (!o.getResult().hasOneUse() ||
            !isa<kg::GatedRmsNormOp>(*o.getResult().getUsers().begin()))
          return refuse(o, "stage.gdn_step ends in the gated RMSNorm: the "
                           "result must feed exactly one kiln.gated_rms_norm");
        if (!o.getDecay().getDefiningOp<kg::GdnGatesOp>() ||
            !o.getBeta().getDefiningOp<kg::GdnGatesOp>())
          return refuse(o, "stage.gdn_step computes g and beta itself: they "
                           "must come from kiln.gdn_gates");
        if (o.getQkEps().convertToFloat() != 1.0e-6f)
          return refuse(o, "stage.gdn_step normalises q and k with eps 1e-6, "
                           "got qk_eps = ")
                 << o.getQkEps().convertToFloat();
        return success();
      })
      .Case([&](kg::GatedRmsNormOp o) { return lowerGatedRmsNorm(o); })
      .Case([&](kg::RotaryOp o) {
        return checkConsumedBy(o, "stage.rope_kv_write or stage.dory_prep",
                               [](Operation *u) {
                                 return isa<kg::RingAttentionOp,
                                            kg::KvRingWriteOp, kg::QkPrepOp>(u);
                               });
      })
      .Case([&](kg::QkPrepOp o) -> LogicalResult {
        for (Operation *u : o.getKeyOut().getUsers())
          if (!isa<kg::KvRingWriteOp>(u))
            return refuse(o, "stage.dory_prep writes the prepped key to the "
                             "ring only; it may feed only kiln.kv_ring_write");
        if (!o.getQuery().getDefiningOp<kg::RotaryOp>() ||
            !o.getKey().getDefiningOp<kg::RotaryOp>())
          return refuse(o, "stage.dory_prep applies the rotary itself: q and "
                           "k must come from kiln.rotary");
        return success();
      })
      .Case([&](kg::KvRingWriteOp o) { return lowerKvRingWrite(o); })
      .Case([&](kg::RingAttentionOp o) { return lowerRingAttention(o); })
      .Case([&](kg::LogSoftmaxOp o) { return lowerLogSoftmax(o); })
      .Case([&](kg::TopPGateOp o) {
        return checkConsumedBy(o, "stage.head_rows (params word 2)",
                               [](Operation *u) {
                                 return isa<kg::ClusteredHeadOp>(u);
                               });
      })
      .Case([&](kg::ClusteredHeadOp o) { return lowerClusteredHead(o); })
      .Case([&](kg::ResonanceRouteOp o) { return lowerRoute(o); })
      .Case([&](kg::WindowAttentionOp o) { return lowerWindowAttention(o); })
      .Case([&](kg::OutputGateOp o) { return lowerOutputGate(o); })
      .Case([&](kg::ScaledSwiGluOp o) { return lowerScaledSwiGlu(o); })
      .Case([&](kg::SlerpResidualOp o) { return lowerSlerp(o); })
      .Case([&](kg::LoopOp o) { return lowerLoop(o); })
      .Case([&](kg::MixOp o) -> LogicalResult {
        if (failed(emitMix(o, o.getMode(), o.getState(), o.getInput(),
                           o.getEps().convertToFloat())))
          return failure();
        alias(o.getResult(), bufferOf(o.getInput()));
        return success();
      })
      .Case([&](kg::FarFieldCaptureOp o) { return lowerFarFieldCapture(o); })
      .Case([&](kg::FarFieldPushOp o) { return lowerFarFieldPush(o); })
      .Case([&](kg::MaxProbOp o) { return lowerMaxProb(o); })
      .Case([&](kg::ExpertSelectOp o) { return lowerExpertSelect(o); })
      .Default([&](Operation *o) {
        return refuse(o, "no stage lowering for this op");
      });
}

LogicalResult Lowering::lowerEmbed(kg::EmbedOp op) {
  auto type = dyn_cast<kg::WeightType>(op.getTable().getType());
  auto weight = op.getTable().getDefiningOp<kg::WeightOp>();
  if (!type || !weight || type.getFormat() != kg::WeightFormat::f16)
    return refuse(op, "stage.embed_gather reads a declared f16 table "
                      "(!kiln.weight<[V, H], f16>)");
  Value table = matrixWeight(weight.getName(), type);
  OpBuilder b = dispatch("embed");
  stage::EmbedGatherOp::create(b, op.getLoc(), table, params_,
                               bufferOf(op.getResult()));
  return success();
}

LogicalResult Lowering::lowerRmsNorm(kg::RmsNormOp op) {
  auto weight = op.getWeight().getDefiningOp<kg::WeightOp>();
  if (!weight)
    return refuse(op, "stage.rmsnorm reads its weight from a declared tensor");
  Value w = tensorWeight(weight.getName(),
                         cast<RankedTensorType>(weight.getType()));
  Value residual = bufferOf(op.getInput());
  FoldNeeds needs = foldNeeds(op.getResult());
  SmallVector<Value> foldedOuts;
  for (Value scale : needs.colScales) {
    int64_t size = cast<RankedTensorType>(op.getType()).getNumElements();
    Value out = freshScratch(size, "plane.norm.folded");
    folded_[{op.getResult(), scale}] = out;
    foldedOuts.push_back(out);
  }
  OpBuilder b = dispatch(weight.getName());
  UnitAttr zc = op.getZeroCentered() ? b.getUnitAttr() : UnitAttr();
  // Folds come one per output or not at all: a plain output and folded ones
  // are two rmsnorm stages of one dispatch (one workgroup each, no partials,
  // so running the norm twice changes nothing).
  if (needs.plain || needs.colScales.empty())
    stage::RMSNormOp::create(b, op.getLoc(), residual, Value(), w,
                             ValueRange{bufferOf(op.getResult())}, ValueRange{},
                             op.getEpsAttr(), zc);
  if (!foldedOuts.empty())
    stage::RMSNormOp::create(b, op.getLoc(), residual, Value(), w, foldedOuts,
                             needs.colScales, op.getEpsAttr(), zc);
  return success();
}

LogicalResult Lowering::lowerMatVec(kg::MatVecOp op) {
  if (isa<RankedTensorType>(op.getWeight().getType())) {
    // An f32 matrix is the Embryo cluster head, computed with its
    // log_softmax by stage.cluster_logits.
    if (op.getResult().hasOneUse() &&
        isa<kg::LogSoftmaxOp>(*op.getResult().getUsers().begin()))
      return success();
    return refuse(op, "an f32 matrix is only lowered as the cluster logits "
                      "of the head (its one reader is a kiln.log_softmax)");
  }
  auto weight = op.getWeight().getDefiningOp<kg::WeightOp>();
  if (!weight) {
    if (auto select = op.getWeight().getDefiningOp<kg::ExpertSelectOp>())
      return lowerExpertMatVec(op, select);
    return refuse(op, "stage.matvec reads a declared matrix or a routed "
                      "expert's (kiln.expert_select)");
  }
  auto type = cast<kg::WeightType>(weight.getType());
  bool q8 = type.getFormat() == kg::WeightFormat::q8_2f;
  Value w = matrixWeight(weight.getName(), type);
  Value scale = q8 ? rowScale(weight.getName(), type) : Value();
  Value input = q8 ? foldedInput(op.getInput(), colScale(weight.getName(), type))
                   : bufferOf(op.getInput());
  Value out = bufferOf(op.getResult());
  Value fold = singleFold(op.getResult());
  OpBuilder b = dispatch(weight.getName());
  stage::MatVecOp::create(
      b, op.getLoc(), w, /*expert=*/Value(), scale, /*colScale=*/Value(),
      input, /*norm=*/Value(), /*slerp_update=*/Value(), /*slerp_alpha=*/Value(),
      /*up=*/Value(), out, fold, /*hidden_out=*/Value(),
      q8 ? stage::MatrixFormat::q8_2f : stage::MatrixFormat::f16, stage::Activation::none,
      /*split_k=*/1, /*accumulate=*/false, /*experts=*/1, /*norm_eps=*/FloatAttr(),
      /*norm_zero_centered=*/false, /*slerp_eps=*/FloatAttr());
  return success();
}

LogicalResult Lowering::lowerBinary(Operation *op) {
  Value lhs = bufferOf(op->getOperand(0)), rhs = bufferOf(op->getOperand(1));
  Value result = op->getResult(0);
  Value out = bufferOf(result);
  Value fold = singleFold(result);
  OpBuilder b = dispatch(isa<kg::AddOp>(op) ? "add" : "mul");
  if (isa<kg::AddOp>(op))
    stage::AddOp::create(b, op->getLoc(), lhs, rhs, out, fold);
  else
    stage::MulOp::create(b, op->getLoc(), lhs, rhs, out, fold);
  return success();
}

LogicalResult Lowering::lowerSwiGlu(kg::SwiGluOp op) {
  Value gate = bufferOf(op.getGate()), up = bufferOf(op.getUp());
  Value out = bufferOf(op.getResult());
  Value fold = singleFold(op.getResult());
  OpBuilder b = dispatch("silu_mul");
  stage::SiluMulOp::create(b, op.getLoc(), gate, up, out, fold);
  return success();
}

LogicalResult Lowering::lowerReturn(kg::ReturnOp op) {
  if (readbackArg_ < 0)
    return refuse(op, "the returned log-probs have no producing stage");
  if (readbackConflict_)
    return refuse(op, "the early-exit read-out leaves logits in the readback "
                      "(the host applies log_softmax), so the returned value "
                      "must be logits too: a kiln.log_softmax right before "
                      "kiln.return");
  auto type = cast<RankedTensorType>(op.getLogprobs().getType());
  if (type.getNumElements() != vocab_)
    return refuse(op, "the readback holds the vocabulary (")
           << vocab_ << " values), got " << type.getNumElements();
  // A prompt's call leaves its last row's log-probabilities to the host,
  // which samples the first generated token.
  if (rows_ > 1)
    return success();
  // The greedy pick on the device, after every pass (never skipped by an
  // early exit): the runtime feeds it to the next step when it runs many
  // tokens per submit.
  MLIRContext *ctx = module_.getContext();
  // The pick, its log-probability and the continue word (kStopTokenWord).
  sampled_ = addArgument(MemRefType::get({3}, IntegerType::get(ctx, 32)),
                         {BufferKind::State, "sampled", {}});
  auto sample = stage::DispatchOp::create(builder_, op.getLoc(), kernelName("sample"));
  OpBuilder b = OpBuilder::atBlockEnd(&sample.getBody().front());
  Value readback = func_.getBody().front().getArgument(readbackArg_);
  stage::SampleOp::create(b, op.getLoc(), readback, params_, sampled_,
                          readbackValues_ == "Logits");
  return success();
}

LogicalResult Lowering::checkLastUse(Value value, Operation *op) {
  for (Operation *user : value.getUsers()) {
    if (user == op)
      continue;
    Operation *inBlock = op->getBlock()->findAncestorOpInBlock(*user);
    if (!inBlock || !inBlock->isBeforeInBlock(op))
      return refuse(op, "it updates its input's buffer in place, but that "
                        "input is read again later by '")
             << user->getName() << "'";
  }
  return success();
}

void Lowering::finish() {
  MLIRContext *ctx = module_.getContext();
  Builder b(ctx);
  Block &entry = func_.getBody().front();
  func_.setFunctionType(b.getFunctionType(entry.getArgumentTypes(), {}));
  for (auto [index, buffer] : llvm::enumerate(buffers_)) {
    SmallVector<stage::WeightTensorAttr> tensors;
    for (const TensorPlacement &t : buffer.tensors)
      tensors.push_back(stage::WeightTensorAttr::get(ctx, t.name, t.dtype, t.shape, t.layout,
                                                     t.byteOffset, t.rowPitchBytes));
    int64_t bytes = stage::bufferBytes(cast<MemRefType>(entry.getArgument(index).getType()));
    // kiln-plan-memory gives it a slot.
    func_.setArgAttr(index, stage::kBufferAttrName,
                     stage::BufferAttr::get(ctx, buffer.kind, buffer.name,
                                            /*slot=*/std::nullopt, /*byte_offset=*/0,
                                            bytes * buffer.rows, tensors, buffer.rows));
  }
  func_->setAttr(stage::kReadbackAttrName,
                 stage::ReadbackAttr::get(ctx, readbackArg_, /*byte_offset=*/0, vocab_,
                                          readbackValues_));
  // The session's sampling options and stop token (stage.sample) and head
  // top-p (stage.head_rows): (name, word, rule) of each field the kernels read.
  SmallVector<std::tuple<const char *, int64_t, const char *>> fields;
  if (sampled_)
    fields.append({{"temperature", stage::kTemperatureWord, "Temperature"},
                   {"top_p", stage::kTopPWord, "TopP"},
                   {"random", stage::kRandomWord, "RandomU32"},
                   {"stop_token", stage::kStopTokenWord, "StopToken"}});
  if (headTopP_)
    fields.push_back({"head_top_p", stage::kHeadTopPWord, "HeadTopP"});
  SmallVector<Attribute> params;
  for (auto [name, word, rule] : fields)
    params.push_back(stage::ParamFieldAttr::get(ctx, name, word, rule, /*n=*/std::nullopt,
                                                /*row=*/std::nullopt, /*value=*/Attribute()));
  if (rows_ > 1) {
    func_->setAttr(stage::kMaxRowsAttrName, b.getI64IntegerAttr(rows_));
    params.push_back(stage::ParamFieldAttr::get(ctx, "row_count", stage::kRowCountWord,
                                                "RowCount", /*n=*/std::nullopt,
                                                /*row=*/std::nullopt, Attribute()));
    params.push_back(stage::ParamFieldAttr::get(ctx, "tokens", stage::kFirstTokenWord,
                                                "Tokens", /*n=*/rows_,
                                                /*row=*/std::nullopt, Attribute()));
  }
  func_->setAttr(stage::kParamsAttrName, b.getArrayAttr(params));
  SmallVector<Attribute> flags;
  if (exitFlag_)
    flags.push_back(stage::DeviceFlagAttr::get(
        ctx, "early_exit", cast<BlockArgument>(exitFlag_).getArgNumber(),
        /*byte_offset=*/0, /*reset_value=*/0));
  func_->setAttr(stage::kDeviceFlagsAttrName, b.getArrayAttr(flags));
  if (sampled_)
    func_->setAttr(stage::kSampledAttrName,
                   stage::SampledAttr::get(ctx, cast<BlockArgument>(sampled_).getArgNumber(),
                                           /*byte_offset=*/0, /*draws=*/true,
                                           /*stop_flag=*/true));
}

} // namespace kiln::lowering
