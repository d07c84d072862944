//===- VerifyModel.cpp - --kiln-verify-model ------------------------------===//
//
// Cross-op checks: weight declarations against docs/weights.md and the model's
// attributes, unused declarations, eps/zero_centered agreement, family ops.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Regex.h"

namespace kiln::graph {
#define GEN_PASS_DEF_KILNVERIFYMODEL
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

namespace {

/// How a weight is stored (docs/weights.md).
enum class StorageKind { F16Matrix, Matrix, Tensor };

/// A dim of an expected shape: a model attribute or "any".
enum class Dim { H, I, V, Any };

struct WeightRule {
  StorageKind kind;
  SmallVector<Dim, 3> dims;
  const char *shapeText; // for messages, as docs/weights.md writes it
};

/// The name with layer and expert indices replaced by `{i}` / `{e}`.
std::string canonicalName(StringRef name) {
  static llvm::Regex layer("^layers\\.[0-9]+\\.");
  static llvm::Regex expert("moe\\.experts\\.[0-9]+\\.");
  std::string result = layer.sub("layers.{i}.", name);
  return expert.sub("moe.experts.{e}.", result);
}

std::optional<WeightRule> lookupRule(Family family, StringRef canonical) {
  using K = StorageKind;
  const Dim H = Dim::H, I = Dim::I, V = Dim::V, A = Dim::Any;
  if (canonical == "embed")
    return WeightRule{K::F16Matrix, {V, H}, "[V, H]"};
  if (family == Family::embryo)
    return llvm::StringSwitch<std::optional<WeightRule>>(canonical)
        .Case("final_norm", WeightRule{K::Tensor, {H}, "[H]"})
        .Case("head.clusters", WeightRule{K::Tensor, {A, H}, "[NC, H]"})
        .Case("head.rows", WeightRule{K::Matrix, {V, H}, "[V, H]"})
        .Cases({"layers.{i}.in_norm", "layers.{i}.post_norm"},
               WeightRule{K::Tensor, {H}, "[H]"})
        .Cases({"layers.{i}.gdn.qkv", "layers.{i}.gdn.z", "layers.{i}.gdn.a",
                "layers.{i}.gdn.b"},
               WeightRule{K::Matrix, {A, H}, "[*, H]"})
        .Case("layers.{i}.gdn.conv",
              WeightRule{K::Tensor, {A, A}, "[cdim, kk]"})
        .Cases({"layers.{i}.gdn.A_log", "layers.{i}.gdn.dt_bias"},
               WeightRule{K::Tensor, {A}, "[nv]"})
        .Case("layers.{i}.gdn.norm", WeightRule{K::Tensor, {A}, "[dv]"})
        .Case("layers.{i}.gdn.out", WeightRule{K::Matrix, {H, A}, "[H, nv*dv]"})
        .Cases({"layers.{i}.attn.q", "layers.{i}.attn.k", "layers.{i}.attn.v"},
               WeightRule{K::Matrix, {A, H}, "[*, H]"})
        .Case("layers.{i}.attn.o", WeightRule{K::Matrix, {H, A}, "[H, qh*hd]"})
        .Cases({"layers.{i}.attn.sink_k", "layers.{i}.attn.sink_v"},
               WeightRule{K::Tensor, {A, A, A}, "[kvh, ns, hd]"})
        .Cases({"layers.{i}.ffn.gate", "layers.{i}.ffn.up",
                "layers.{i}.moe.experts.{e}.gate",
                "layers.{i}.moe.experts.{e}.up"},
               WeightRule{K::Matrix, {I, H}, "[I, H]"})
        .Cases({"layers.{i}.ffn.down", "layers.{i}.moe.experts.{e}.down"},
               WeightRule{K::Matrix, {H, I}, "[H, I]"})
        .Case("layers.{i}.moe.centres", WeightRule{K::Tensor, {A, H}, "[E, H]"})
        .Case("layers.{i}.moe.basis",
              WeightRule{K::Tensor, {A, A, H}, "[E, R, H]"})
        .Cases({"layers.{i}.moe.bias", "layers.{i}.moe.shells"},
               WeightRule{K::Tensor, {A}, "[E]"})
        .Default(std::nullopt);
  return llvm::StringSwitch<std::optional<WeightRule>>(canonical)
      .Case("head", WeightRule{K::Matrix, {V, H}, "[V, H]"})
      .Case("head_scale", WeightRule{K::Tensor, {V}, "[V]"})
      .Cases({"layers.{i}.attn.q", "layers.{i}.attn.gate", "layers.{i}.attn.k",
              "layers.{i}.attn.v"},
             WeightRule{K::Matrix, {A, H}, "[*, H]"})
      .Case("layers.{i}.attn.o", WeightRule{K::Matrix, {H, A}, "[H, qh*hd]"})
      .Case("layers.{i}.attn.s_qk", WeightRule{K::Tensor, {A, A}, "[qh, hd]"})
      .Case("layers.{i}.attn.s_g", WeightRule{K::Tensor, {A}, "[qh*hd]"})
      .Cases({"layers.{i}.attn.sink_k", "layers.{i}.attn.sink_v"},
             WeightRule{K::Tensor, {A, A, A}, "[kvh, ns, hd]"})
      .Cases({"layers.{i}.mlp.gate", "layers.{i}.mlp.up"},
             WeightRule{K::Matrix, {I, H}, "[I, H]"})
      .Case("layers.{i}.mlp.down", WeightRule{K::Matrix, {H, I}, "[H, I]"})
      .Cases({"layers.{i}.mlp.s_u", "layers.{i}.mlp.s_v"},
             WeightRule{K::Tensor, {I}, "[I]"})
      .Cases({"layers.{i}.alpha_attn", "layers.{i}.alpha_mlp"},
             WeightRule{K::Tensor, {H}, "[H]"})
      .Default(std::nullopt);
}

SmallVector<int64_t, 3> shapeOf(Type type) {
  if (auto weight = dyn_cast<WeightType>(type))
    return {weight.getRows(), weight.getCols()};
  auto shape = cast<RankedTensorType>(type).getShape();
  return SmallVector<int64_t, 3>(shape.begin(), shape.end());
}

std::string shapeText(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

struct KilnVerifyModelPass
    : public kiln::graph::impl::KilnVerifyModelBase<KilnVerifyModelPass> {
  using KilnVerifyModelBase::KilnVerifyModelBase;

  void runOnOperation() override {
    ModelOp model = getOperation();
    bool ok = true;
    for (auto decl : model.getBody().getOps<WeightDeclOp>())
      ok &= succeeded(checkWeightDecl(model, decl));
    if (!allowUnused)
      ok &= succeeded(checkAllUsed(model));
    model.getStep().walk([&](Operation *op) {
      ok &= succeeded(checkOp(model, op));
    });
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  LogicalResult checkWeightDecl(ModelOp model, WeightDeclOp decl) {
    StringRef name = decl.getSymName();
    std::optional<WeightRule> rule =
        lookupRule(model.getFamily(), canonicalName(name));
    if (!rule)
      return decl.emitOpError()
             << "weight @" << name << " is not a "
             << stringifyFamily(model.getFamily())
             << " weight name of docs/weights.md";
    Type type = decl.getType();
    bool isWeight = isa<WeightType>(type);
    switch (rule->kind) {
    case StorageKind::F16Matrix:
      if (!isWeight ||
          cast<WeightType>(type).getFormat() != WeightFormat::f16)
        return decl.emitOpError()
               << "weight @" << name << " must be an f16 !kiln.weight";
      break;
    case StorageKind::Matrix:
      if (!isWeight)
        return decl.emitOpError() << "weight @" << name
                                  << " is a matrix: it must be a !kiln.weight";
      break;
    case StorageKind::Tensor:
      if (isWeight)
        return decl.emitOpError()
               << "weight @" << name << " is stored as F32: it must be a tensor";
      break;
    }
    SmallVector<int64_t, 3> shape = shapeOf(type);
    SmallVector<int64_t, 3> expected;
    for (Dim dim : rule->dims) {
      switch (dim) {
      case Dim::H: expected.push_back(model.getHidden()); break;
      case Dim::I: expected.push_back(model.getIntermediate()); break;
      case Dim::V: expected.push_back(model.getVocab()); break;
      case Dim::Any: expected.push_back(ShapedType::kDynamic); break;
      }
    }
    bool matches = shape.size() == expected.size();
    for (size_t i = 0; matches && i < shape.size(); ++i)
      matches = expected[i] == ShapedType::kDynamic || expected[i] == shape[i];
    if (!matches) {
      std::string wanted = "[";
      for (size_t i = 0; i < expected.size(); ++i) {
        if (i)
          wanted += ", ";
        wanted += expected[i] == ShapedType::kDynamic
                      ? std::string("*")
                      : std::to_string(expected[i]);
      }
      wanted += "]";
      return decl.emitOpError()
             << "weight @" << name << " has shape " << shapeText(shape)
             << ", expected " << wanted << " (" << canonicalName(name)
             << " is " << rule->shapeText << ")";
    }
    return success();
  }

  LogicalResult checkAllUsed(ModelOp model) {
    llvm::StringSet<> used;
    model.getStep().walk([&](Operation *op) {
      if (auto weight = dyn_cast<WeightOp>(op))
        used.insert(weight.getName());
      else if (auto state = dyn_cast<StateOp>(op))
        used.insert(state.getName());
    });
    bool ok = true;
    for (Operation &op : model.getBody().front()) {
      auto symbol = dyn_cast<SymbolOpInterface>(op);
      if (!symbol || used.contains(symbol.getName()))
        continue;
      op.emitOpError() << "@" << symbol.getName()
                       << " is declared but no op in the step uses it";
      ok = false;
    }
    return success(ok);
  }

  LogicalResult checkEps(ModelOp model, Operation *op, const APFloat &eps) {
    if (eps.convertToFloat() == model.getEps().convertToFloat())
      return success();
    return op->emitOpError() << "eps (" << eps.convertToDouble()
                             << ") differs from the model's eps ("
                             << model.getEps().convertToDouble() << ")";
  }

  LogicalResult checkOp(ModelOp model, Operation *op) {
    bool embryoOnly = isa<ConvRingStepOp, GdnGatesOp, GdnStepOp, GatedRmsNormOp,
                          RingAttentionOp, ResonanceRouteOp, ExpertSelectOp,
                          TopPGateOp, ClusteredHeadOp, RmsNormOp, SwiGluOp>(op);
    bool doryOnly = isa<QkPrepOp, WindowAttentionOp, OutputGateOp,
                        SlerpResidualOp, FarFieldCaptureOp, FarFieldPushOp,
                        LoopOp, MixOp, ScaledSwiGluOp>(op);
    Family family = model.getFamily();
    if ((embryoOnly && family != Family::embryo) ||
        (doryOnly && family != Family::dory))
      return op->emitOpError() << "is not part of the "
                               << stringifyFamily(family) << " family";
    if (auto norm = dyn_cast<RmsNormOp>(op)) {
      if (norm.getZeroCentered() != model.getZeroCenteredNorm())
        return op->emitOpError()
               << "zero_centered must match the model's zero_centered_norm ("
               << (model.getZeroCenteredNorm() ? "set" : "unset") << ")";
      return checkEps(model, op, norm.getEps());
    }
    if (auto norm = dyn_cast<GatedRmsNormOp>(op))
      return checkEps(model, op, norm.getEps());
    if (auto prep = dyn_cast<QkPrepOp>(op))
      return checkEps(model, op, prep.getEps());
    if (auto slerp = dyn_cast<SlerpResidualOp>(op))
      return checkEps(model, op, slerp.getEps());
    if (auto mix = dyn_cast<MixOp>(op))
      return checkEps(model, op, mix.getEps());
    if (auto embed = dyn_cast<EmbedOp>(op)) {
      int64_t size = getElementCount(embed.getType());
      if (size != model.getHidden())
        return op->emitOpError() << "yields " << size
                                 << " values, but the model's hidden is "
                                 << model.getHidden();
    }
    return success();
  }
};

} // namespace
