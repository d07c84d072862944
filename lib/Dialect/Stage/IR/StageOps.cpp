//===- StageOps.cpp - Verifiers of Kiln's stage ops -----------------------===//
//
// Every rule a kernel relies on is checked here, with a message naming the
// rule and the values involved, so that StageToGPU can assume them.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Stage/IR/StageOps.h"
#include "kiln/Dialect/Stage/IR/StageFusion.h"
#include "kiln/Dialect/Stage/IR/StageModule.h"

#include "BufferRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace kiln::stage;
using namespace kiln::stage::detail;

namespace {

LogicalResult verifyParams(Operation *op, Value params) {
  if (dim(params, 0) < 4)
    return op->emitOpError("params must hold at least 4 words (token, "
                           "position, gate, spare), got ")
           << dim(params, 0);
  return success();
}

bool isSingleWorkgroupStage(Operation *op) {
  return isa<RMSNormOp, RouterOp, SlerpOp, DoryMixOp>(op);
}

} // namespace

#define GET_OP_CLASSES
#include "kiln/Dialect/Stage/IR/StageOps.cpp.inc"

//===----------------------------------------------------------------------===//
// DispatchOp
//===----------------------------------------------------------------------===//

void DispatchOp::build(OpBuilder &builder, OperationState &state,
                       StringRef name) {
  if (!name.empty())
    state.addAttribute(getKernelNameAttrName(state.name),
                       builder.getStringAttr(name));
  Region *body = state.addRegion();
  body->push_back(new Block());
}

bool DispatchOp::runsInFirstCallOnly() {
  Block &body = getBody().front();
  return !body.empty() && llvm::all_of(body, [](Operation &op) {
    return op.hasTrait<FirstCallOnly>();
  });
}

LogicalResult DispatchOp::verify() {
  Block &block = getBody().front();
  if (block.empty())
    return emitOpError("must hold at least one stage");
  int64_t count = 0;
  bool allSingleWorkgroup = true;
  SmallVector<Operation *> stages;
  bool prefetching = false;
  for (Operation &op : block) {
    if (op.getDialect() != getOperation()->getDialect() || isa<DispatchOp>(op))
      return emitOpError("may hold only stage ops, found '")
             << op.getName() << "'";
    // Prefetches ride on workgroups appended after the stages' grid.
    if (isa<PrefetchOp>(op)) {
      prefetching = true;
      continue;
    }
    if (prefetching)
      return emitOpError("holds '")
             << op.getName() << "' after a stage.prefetch: prefetches come last";
    ++count;
    allSingleWorkgroup &= isSingleWorkgroupStage(&op);
    stages.push_back(&op);
  }
  if (stages.empty())
    return emitOpError("must hold a stage besides its prefetches");
  // A fused form's rules read its stages' attributes and shapes: they are
  // checked once the stages are verified (verifyRegions).
  if (std::optional<StringRef> fusion = getFusion()) {
    if (!parseFusionForm(*fusion))
      return emitOpError("fusion must be \"one_workgroup\", \"concurrent\", \"pointwise\", "
                         "\"row_epilogue\", \"last_workgroup\" or \"split_keys\", got \"")
             << *fusion << "\"";
    return success();
  }
  if (count > 1 && !allSingleWorkgroup)
    return emitOpError("with ")
           << count
           << " stages needs every stage to run in one workgroup (rmsnorm, "
              "router, slerp, dory_mix): only a workgroup "
              "barrier may separate fused stages";
  return success();
}

LogicalResult DispatchOp::verifyRegions() {
  // A fused form (StageFusion.h, docs/fusion.md) has its own rules.
  if (std::optional<StringRef> fusion = getFusion()) {
    SmallVector<Operation *> stages;
    for (Operation &op : getBody().front())
      if (!isa<PrefetchOp>(op))
        stages.push_back(&op);
    std::string whyNot;
    if (!canFuse(*parseFusionForm(*fusion), stages, whyNot))
      return emitOpError("fusion \"") << *fusion << "\": " << whyNot;
  }
  // Dory's early exit: skip_if(%flag)[word].
  Value flag = getSkipFlag();
  if (static_cast<bool>(flag) != getSkipWord().has_value())
    return emitOpError("skip_if needs both the flag buffer and its word");
  if (!flag)
    return success();
  auto type = llvm::cast<MemRefType>(flag.getType());
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return emitOpError("skip_if flag must be a static identity-layout "
                       "memref, got ")
           << type;
  int64_t word = static_cast<int64_t>(*getSkipWord());
  if (word < 0 || word >= type.getDimSize(0))
    return emitOpError("skip_if word ")
           << word << " is outside the flag buffer (" << type.getDimSize(0)
           << " words)";
  return success();
}

//===----------------------------------------------------------------------===//
// Embryo stages
//===----------------------------------------------------------------------===//

LogicalResult EmbedGatherOp::verify() {
  if (failed(verifyBuffers(*this)) || failed(verifyParams(*this, getParams())))
    return failure();
  int64_t hidden = dim(getOut(), 0);
  if (dim(getTable(), 1) != ceilDiv(hidden, 8))
    return emitOpError("table rows hold ")
           << dim(getTable(), 1) << " groups of 8 halves, expected ceil("
           << hidden << "/8) = " << ceilDiv(hidden, 8)
           << " for an output of " << hidden;
  return success();
}

LogicalResult RMSNormOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  int64_t hidden = dim(getResidual(), 0);
  if (failed(expectSize(*this, "weight", getWeight(), hidden,
                        "one weight per residual value")))
    return failure();
  if (getPartials() && dim(getPartials(), 1) != hidden)
    return emitOpError("partials planes hold ")
           << dim(getPartials(), 1) << " values, expected the residual's "
           << hidden;
  if (getOuts().empty())
    return emitOpError("needs at least one output");
  for (Value out : getOuts())
    if (failed(expectSize(*this, "output", out, hidden,
                          "an output per residual value")))
      return failure();
  if (!getFolds().empty() && getFolds().size() != getOuts().size())
    return emitOpError("has ")
           << getFolds().size() << " folds for " << getOuts().size()
           << " outputs: give one fold per output or none";
  for (Value fold : getFolds())
    if (failed(expectSize(*this, "fold", fold, hidden,
                          "a column field per residual value")))
      return failure();
  if (getEps().convertToFloat() <= 0.0f)
    return emitOpError("eps must be positive");
  return success();
}

int64_t MatVecOp::getRows() {
  auto type = llvm::cast<MemRefType>(getWeight().getType());
  return type.getDimSize(0) / std::max<int64_t>(getNumExperts(), 1);
}
int64_t MatVecOp::getColumns() { return dim(getInput(), 0); }
int64_t MatVecOp::getGroupWidth() {
  return getFormat() == MatrixFormat::f16 ? 8 : 16;
}

LogicalResult MatVecOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  // A routed expert: E matrices stacked row-wise, picked by a device word.
  int64_t experts = getNumExperts();
  if (experts < 1)
    return emitOpError("experts must be at least 1, got ") << experts;
  if (experts > 1 && !getExpert())
    return emitOpError("experts = ")
           << experts << " needs an expert operand (the index stage.router "
                         "writes) to pick one";
  if (getExpert() && failed(expectSize(*this, "expert", getExpert(), 1,
                                       "one selected index")))
    return failure();
  if (dim(getWeight(), 0) % experts != 0)
    return emitOpError("weight has ")
           << dim(getWeight(), 0) << " rows, not a multiple of experts ("
           << experts << "): the candidates are stacked row-wise";
  int64_t rows = getRows(), columns = getColumns();
  int64_t groups = ceilDiv(columns, getGroupWidth());
  if (dim(getWeight(), 1) != groups)
    return emitOpError("weight rows hold ")
           << dim(getWeight(), 1) << " 16-byte groups, expected ceil("
           << columns << "/" << getGroupWidth() << ") = " << groups
           << " for " << stringifyMatrixFormat(getFormat()) << " rows of "
           << columns << " columns";
  bool quantized = getFormat() == MatrixFormat::q8_2f;
  if (quantized != static_cast<bool>(getRowScale()))
    return emitOpError(quantized ? "q8_2f needs a row_scale operand"
                                 : "f16 takes no row_scale operand");
  if (getRowScale() &&
      failed(expectSize(*this, "row_scale", getRowScale(), experts * rows,
                        experts > 1 ? "one scale per row of each expert"
                                    : "one scale per row")))
    return failure();
  if (getColScale() && !quantized)
    return emitOpError("f16 takes no col_scale operand");
  if (getColScale() &&
      failed(expectSize(*this, "col_scale", getColScale(), experts * columns,
                        experts > 1 ? "one scale per column of each expert"
                                    : "one scale per column")))
    return failure();
  bool gated = getActivation() == Activation::silu_mul;
  if (gated != static_cast<bool>(getUp()))
    return emitOpError(gated ? "activation silu_mul needs an up operand"
                             : "an up operand needs activation silu_mul");
  if (getUp() && failed(expectSize(*this, "up", getUp(), columns,
                                   "up matches the input")))
    return failure();
  if (static_cast<bool>(getNorm()) != getNormEps().has_value())
    return emitOpError("norm and norm_eps come together");
  if (getNorm() && (gated || experts > 1))
    return emitOpError("a norm reads the plain input of one matrix: not with an "
                       "activation or experts");
  if (getNorm() && failed(expectSize(*this, "norm", getNorm(), columns,
                                     "one norm weight per column")))
    return failure();
  if (getNormZeroCentered() && !getNorm())
    return emitOpError("norm_zero_centered needs a norm operand");
  bool slerp = static_cast<bool>(getSlerpUpdate());
  if (slerp != static_cast<bool>(getSlerpAlpha()) || slerp != getSlerpEps().has_value())
    return emitOpError("a slerp needs its update, alpha and slerp_eps together");
  if (slerp && (gated || experts > 1 || getNorm()))
    return emitOpError("a slerp reads the plain hidden state of one matrix: not "
                       "with a norm, an activation or experts");
  if (slerp && (failed(expectSize(*this, "slerp update", getSlerpUpdate(), columns,
                                  "the update matches the hidden state")) ||
                failed(expectSize(*this, "slerp alpha", getSlerpAlpha(), columns,
                                  "one alpha per column"))))
    return failure();
  if (slerp && getSlerpEps()->convertToFloat() <= 0.0f)
    return emitOpError("slerp_eps must be positive");
  if (Value next = getHiddenOut()) {
    if (!slerp)
      return emitOpError("hidden_out receives a slerp's new hidden state: it needs slerp");
    if (failed(expectSize(*this, "hidden_out", next, columns,
                          "the new hidden state matches the old")))
      return failure();
    for (Value read : {getInput(), getSlerpUpdate(), getSlerpAlpha(), getWeight()})
      if (next == read)
        return emitOpError("hidden_out must not be a buffer the mat-vec reads: "
                           "other workgroups still read it");
  }
  int64_t splitK = getSplitK();
  if (splitK < 1 || splitK > groups)
    return emitOpError("split_k must be in [1, ")
           << groups << "] (the row's groups), got " << splitK;
  auto outType = llvm::cast<MemRefType>(getOut().getType());
  if (splitK == 1) {
    if (outType.getRank() != 1 || outType.getDimSize(0) != rows)
      return emitOpError("without split-K the output must be memref<")
             << rows << "xf32>, got " << outType;
  } else {
    if (outType.getRank() != 2 || outType.getDimSize(0) != splitK ||
        outType.getDimSize(1) != rows)
      return emitOpError("split_k = ")
             << splitK << " needs the output planes memref<" << splitK << "x"
             << rows << "xf32>, got " << outType;
    if (getFold())
      return emitOpError("cannot fold a column field into split-K partial "
                         "planes: the planes are summed later");
  }
  if (getFold() && failed(expectSize(*this, "fold", getFold(), rows,
                                     "a column field per output row")))
    return failure();
  return success();
}

static LogicalResult verifyBinary(Operation *op, Value lhs, Value rhs,
                                  Value out, Value fold) {
  if (failed(verifyBuffers(op)))
    return failure();
  int64_t size = dim(out, 0);
  if (failed(expectSize(op, "lhs", lhs, size, "operands match the output")) ||
      failed(expectSize(op, "rhs", rhs, size, "operands match the output")))
    return failure();
  if (fold && failed(expectSize(op, "fold", fold, size,
                                "a column field per output value")))
    return failure();
  return success();
}

LogicalResult SiluMulOp::verify() {
  return verifyBinary(*this, getLhs(), getRhs(), getOut(), getFold());
}
LogicalResult AddOp::verify() {
  return verifyBinary(*this, getLhs(), getRhs(), getOut(), getFold());
}
LogicalResult MulOp::verify() {
  return verifyBinary(*this, getLhs(), getRhs(), getOut(), getFold());
}
LogicalResult SigmoidGateOp::verify() {
  return verifyBinary(*this, getLhs(), getRhs(), getOut(), getFold());
}

LogicalResult ConvRingOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  int64_t channels = dim(getInput(), 0);
  if (failed(expectSize(*this, "output", getOut(), channels,
                        "one output per channel")))
    return failure();
  if (dim(getTaps(), 0) != channels)
    return emitOpError("taps has ")
           << dim(getTaps(), 0) << " rows, expected one per channel ("
           << channels << ")";
  int64_t taps = dim(getTaps(), 1);
  if (taps == 1 && getRing())
    return emitOpError("a 1-tap conv keeps no ring; drop the ring operand");
  if (taps > 1) {
    if (!getRing())
      return emitOpError("a ") << taps << "-tap conv needs a ring of "
                               << taps - 1 << " past inputs";
    if (dim(getRing(), 0) != taps - 1 || dim(getRing(), 1) != channels)
      return emitOpError("ring must be memref<")
             << taps - 1 << "x" << channels << "xf32> (taps - 1 past inputs "
             << "per channel), got " << getRing().getType();
  }
  return success();
}

LogicalResult GdnStepOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  int64_t nv = dim(getState(), 0), dk = dim(getState(), 1),
          dv = dim(getState(), 2);
  int64_t nk = getNumKHeads();
  if (nk < 1 || nv % nk != 0)
    return emitOpError("num_v_heads (")
           << nv << ") must be a multiple of num_k_heads (" << nk << ")";
  int64_t cdim = 2 * nk * dk + nv * dv;
  if (failed(expectSize(*this, "qkv", getQkv(), cdim,
                        "2·nk·dk + nv·dv")) ||
      failed(expectSize(*this, "z", getZ(), nv * dv, "nv·dv")) ||
      failed(expectSize(*this, "a", getA(), nv, "one per value head")) ||
      failed(expectSize(*this, "b", getB(), nv, "one per value head")) ||
      failed(expectSize(*this, "a_log", getALog(), nv, "one per value head")) ||
      failed(expectSize(*this, "dt_bias", getDtBias(), nv,
                        "one per value head")) ||
      failed(expectSize(*this, "norm", getNorm(), dv, "dv, shared by heads")) ||
      failed(expectSize(*this, "output", getOut(), nv * dv, "nv·dv")))
    return failure();
  if (getFold() && failed(expectSize(*this, "fold", getFold(), nv * dv,
                                     "a column field per output value")))
    return failure();
  if (getCounters() && dim(getCounters(), 0) < nv)
    return emitOpError("counters must hold a word a value head (")
           << nv << "), got " << dim(getCounters(), 0);
  if (getEps().convertToFloat() <= 0.0f)
    return emitOpError("eps must be positive");
  return success();
}

/// rope_kv_write's rings are [kvh, W, hd].
static LogicalResult verifyRings(Operation *op, Value kRing, Value vRing) {
  if (kRing.getType() != vRing.getType())
    return op->emitOpError("k_ring and v_ring must have one type, got ")
           << kRing.getType() << " and " << vRing.getType();
  return success();
}

LogicalResult RopeKvWriteOp::verify() {
  if (failed(verifyBuffers(*this)) || failed(verifyParams(*this, getParams())) ||
      failed(verifyRings(*this, getKRing(), getVRing())))
    return failure();
  int64_t kvh = dim(getKRing(), 0), hd = dim(getKRing(), 2);
  if (dim(getQ(), 0) % hd != 0)
    return emitOpError("q has ") << dim(getQ(), 0)
                                 << " values, not a whole number of heads of "
                                 << hd;
  int64_t qh = dim(getQ(), 0) / hd;
  if (qh % kvh != 0)
    return emitOpError("query heads (")
           << qh << ") must be a multiple of KV heads (" << kvh << ")";
  if (failed(expectSize(*this, "k", getK(), kvh * hd, "kvh·hd")) ||
      failed(expectSize(*this, "v", getV(), kvh * hd, "kvh·hd")) ||
      failed(expectSize(*this, "q_out", getQOut(), qh * hd, "qh·hd")))
    return failure();
  int64_t rd = getRotaryDim();
  if (rd < 0 || rd % 2 != 0 || rd > hd)
    return emitOpError("rotary_dim must be even and in [0, head_dim = ")
           << hd << "], got " << rd;
  return success();
}

LogicalResult RouterOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  int64_t hidden = dim(getInput(), 0), experts = dim(getCentres(), 0);
  if (dim(getCentres(), 1) != hidden)
    return emitOpError("centres rows hold ")
           << dim(getCentres(), 1) << " values, expected hidden = " << hidden;
  if (getBasis() &&
      (dim(getBasis(), 0) != experts || dim(getBasis(), 2) != hidden))
    return emitOpError("basis must be [E = ")
           << experts << ", R, H = " << hidden << "], got "
           << getBasis().getType();
  if (failed(expectSize(*this, "bias", getBias(), experts,
                        "one per expert")))
    return failure();
  if (getShells() && failed(expectSize(*this, "shells", getShells(), experts,
                                       "one per expert")))
    return failure();
  return success();
}

LogicalResult ClusterLogitsOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  if (dim(getClusters(), 1) != dim(getInput(), 0))
    return emitOpError("cluster rows hold ")
           << dim(getClusters(), 1) << " values, expected hidden = "
           << dim(getInput(), 0);
  return expectSize(*this, "output", getOut(), dim(getClusters(), 0),
                    "one per cluster");
}

LogicalResult SampleOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  if (getParams() && dim(getParams(), 0) <= kRandomWord)
    return emitOpError("params must hold at least ")
           << kRandomWord + 1 << " words (the draw reads temperature, top_p and a random u32 "
           << "from words " << kTemperatureWord << "-" << kRandomWord << "), got "
           << dim(getParams(), 0);
  // Token ids travel as f32 through the reduction: exact below 2^24.
  if (dim(getValues(), 0) >= (int64_t{1} << 24))
    return emitOpError("vocabulary of ")
           << dim(getValues(), 0) << " tokens: device sampling holds ids below 2^24";
  const int64_t words = dim(getOut(), 0);
  if (words == 3 && (!getParams() || dim(getParams(), 0) <= kStopTokenWord))
    return emitOpError("a continue word (output of 3) compares the pick with params word ")
           << kStopTokenWord << ": params must hold at least " << kStopTokenWord + 1 << " words";
  if (words == 3)
    return success();
  return expectSize(*this, "output", getOut(), 2,
                    "the token and its log-probability; 3 with a continue word");
}

LogicalResult HeadRowsOp::verify() {
  if (failed(verifyBuffers(*this)) || failed(verifyParams(*this, getParams())))
    return failure();
  int64_t vocab = dim(getRows(), 0), clusters = dim(getClusterLogits(), 0);
  int64_t width = getFormat() == MatrixFormat::f16 ? 8 : 16;
  int64_t hidden = dim(getInput(), 0);
  if (dim(getRows(), 1) != ceilDiv(hidden, width))
    return emitOpError("rows hold ")
           << dim(getRows(), 1) << " groups, expected ceil(" << hidden << "/"
           << width << ")";
  if (vocab % clusters != 0)
    return emitOpError("vocabulary (")
           << vocab << ") must be num_clusters (" << clusters
           << ") times cluster_size";
  if (failed(expectSize(*this, "output", getOut(), vocab, "one per token")))
    return failure();
  bool quantized = getFormat() == MatrixFormat::q8_2f;
  if (quantized != static_cast<bool>(getRowScale()))
    return emitOpError(quantized ? "q8_2f needs a row_scale operand"
                                 : "f16 takes no row_scale operand");
  if (getRowScale() && failed(expectSize(*this, "row_scale", getRowScale(),
                                         vocab, "one scale per row")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Dory stages
//===----------------------------------------------------------------------===//

LogicalResult DoryPrepOp::verify() {
  if (failed(verifyBuffers(*this)) || failed(verifyParams(*this, getParams())) ||
      failed(verifyRings(*this, getKRing(), getVRing())))
    return failure();
  int64_t kvh = dim(getKRing(), 0), hd = dim(getKRing(), 2);
  if (hd % 2 != 0)
    return emitOpError("head_dim must be even for full rotary, got ") << hd;
  int64_t qh = dim(getSQk(), 0);
  if (dim(getSQk(), 1) != hd)
    return emitOpError("s_qk rows hold ")
           << dim(getSQk(), 1) << " values, expected head_dim = " << hd;
  if (qh % kvh != 0)
    return emitOpError("query heads (")
           << qh << ") must be a multiple of KV heads (" << kvh << ")";
  if (failed(expectSize(*this, "q", getQ(), qh * hd, "qh·hd")) ||
      failed(expectSize(*this, "q_out", getQOut(), qh * hd, "qh·hd")) ||
      failed(expectSize(*this, "k", getK(), kvh * hd, "kvh·hd")) ||
      failed(expectSize(*this, "v", getV(), kvh * hd, "kvh·hd")))
    return failure();
  if (static_cast<bool>(getLandmarks()) != getLandmarkStride().has_value())
    return emitOpError("a capture needs its landmarks, far_meta and landmark_stride together");
  if (Value landmarks = getLandmarks()) {
    auto type = llvm::cast<MemRefType>(landmarks.getType());
    if (type.getDimSize(0) != kvh || type.getDimSize(2) != hd)
      return emitOpError("landmarks must be memref<")
             << kvh << "xMx" << hd << "xf32> (KV heads x landmarks x head_dim), got " << type;
    if (failed(expectSize(*this, "far_meta", getFarMeta(), 3 * kvh, "three words a KV head")))
      return failure();
    if (*getLandmarkStride() < 1)
      return emitOpError("landmark_stride must be at least 1, got ") << *getLandmarkStride();
  }
  return success();
}

LogicalResult SlerpOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  int64_t hidden = dim(getHidden(), 0);
  if (failed(expectSize(*this, "update", getUpdate(), hidden, "hidden")) ||
      failed(expectSize(*this, "alpha", getAlpha(), hidden, "hidden")))
    return failure();
  return success();
}

LogicalResult DoryMixOp::verify() {
  if (failed(verifyBuffers(*this)))
    return failure();
  int64_t hidden = dim(getHidden(), 0);
  if (failed(expectSize(*this, "entry", getEntry(), hidden, "hidden")) ||
      failed(expectSize(*this, "state", getState(), hidden, "hidden")))
    return failure();
  if (getMode() < 0 || getMode() > 4)
    return emitOpError("mode must be 0..4 (enter, between, leave, read-out, "
                       "resume), got ")
           << getMode();
  return success();
}
