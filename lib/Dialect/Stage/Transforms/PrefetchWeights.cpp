//===- PrefetchWeights.cpp - Weights into the cache during idle dispatches ===//
//
// Passes.td (kiln-prefetch-weights) and docs/fusion.md, "Weight prefetch".
// One walk over each program's dispatches in order, keeping per matrix how
// many of its groups are already prefetched (always a prefix) and the bytes
// prefetched but not yet read, with the dispatch that reads them.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Stage/Transforms/Passes.h"

#include "kiln/Cost/CostModel.h"
#include "kiln/Dialect/Stage/IR/StageFusion.h"
#include "kiln/Dialect/Stage/IR/StageModule.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"
#include "kiln/Dialect/Stage/Transforms/ScratchSlots.h"
#include "kiln/Dialect/Stage/Transforms/StateBuffers.h"
#include "kiln/Dialect/Stage/Transforms/StageCostAnalysis.h"
#include "kiln/Dialect/Stage/Transforms/TargetSelection.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace kiln::stage {

#define GEN_PASS_DEF_KILNPREFETCHWEIGHTS
#include "kiln/Dialect/Stage/Transforms/Passes.h.inc"

namespace {

constexpr int64_t kGroupBytes = 16;
/// A budget below this is not worth the workgroups it launches.
constexpr int64_t kMinPrefetchBytes = 256 * 1024;

/// The matrices a dispatch's mat-vecs read whole (not a routed expert's
/// stack, of which the router picks one), in order.
SmallVector<MatVecOp> wholeMatvecs(DispatchOp dispatch) {
  SmallVector<MatVecOp> found;
  for (auto matvec : dispatch.getBody().front().getOps<MatVecOp>())
    if (!matvec.getExpert())
      found.push_back(matvec);
  return found;
}

double estimateOf(DispatchOp dispatch) {
  auto attr = dispatch->getAttrOfType<FloatAttr>(kEstimatedMicrosAttr);
  return attr ? attr.getValueAsDouble() : 0.0;
}

/// The sink every prefetch of `func` writes: a 16-byte state buffer (never
/// aliased by the memory plan, so a write can land on nothing live).
Value addSink(FunctionOpInterface func, Location loc) {
  return addStateWords(func, "prefetch.sink", kGroupBytes / 4, loc);
}

/// Distinct buffers `dispatch` binds (its stages' operands, its skip flag).
int64_t bindingsOf(DispatchOp dispatch) {
  llvm::SmallDenseSet<Value, 32> seen;
  for (Operation &op : dispatch.getBody().front())
    seen.insert(op.operand_begin(), op.operand_end());
  if (Value flag = dispatch.getSkipFlag())
    seen.insert(flag);
  return static_cast<int64_t>(seen.size());
}

struct Pending {
  size_t reader; // the dispatch that reads the groups
  int64_t bytes;
};

/// Places the prefetches of one program; returns how many it made.
int64_t prefetchProgram(FunctionOpInterface func, const cost::TargetDesc &target,
                        int64_t cacheBytes, bool fromMatvecs, int64_t maxBindings) {
  SmallVector<DispatchOp> dispatches;
  for (Operation &op : func.getFunctionBody().front())
    if (auto dispatch = dyn_cast<DispatchOp>(op))
      dispatches.push_back(dispatch);
  // Bytes a microsecond, and the cache's: an estimate moves by the difference.
  const double memoryBytesPerMicro = target.readBandwidthGBps * 1e3;
  const double cacheBytesPerMicro = target.effectiveCacheBandwidthGBps() * 1e3;

  llvm::DenseMap<Value, int64_t> prefetchedGroups;
  SmallVector<Pending> pending;
  SmallVector<double> savedMicros(dispatches.size(), 0.0);
  Value sink;
  int64_t made = 0;
  for (size_t i = 0; i < dispatches.size(); ++i) {
    DispatchOp dispatch = dispatches[i];
    // What dispatch i reads leaves the pending set as it runs.
    llvm::erase_if(pending, [&](const Pending &p) { return p.reader <= i; });
    // A last-workgroup tail counts the stage's grid: no workgroups appended.
    if (dispatch.getFusion() == fusionFormName(FusionForm::LastWorkgroup))
      continue;
    // A mat-vec keeps the bus busy itself (unless measured otherwise).
    if (!fromMatvecs && !dispatch.getBody().front().getOps<MatVecOp>().empty())
      continue;
    int64_t ownBytes = 0;
    for (const cost::StageCost &c : dispatchCosts(dispatch))
      ownBytes += static_cast<int64_t>(c.bytesRead);
    double idleMicros = estimateOf(dispatch) - ownBytes / memoryBytesPerMicro;
    int64_t budget = static_cast<int64_t>(std::max(0.0, idleMicros) * memoryBytesPerMicro);
    int64_t held = 0;
    for (const Pending &p : pending)
      held += p.bytes;
    budget = std::min(budget, cacheBytes - held);
    if (budget < kMinPrefetchBytes)
      continue;
    OpBuilder b = OpBuilder::atBlockEnd(&dispatch.getBody().front());
    // Each new matrix is one more binding, and so is the sink the first time.
    int64_t bindings = bindingsOf(dispatch) + 1;
    for (size_t j = i + 1; j < dispatches.size() && budget >= kGroupBytes; ++j) {
      for (MatVecOp matvec : wholeMatvecs(dispatches[j])) {
        if (bindings >= maxBindings)
          break;
        Value matrix = matvec.getWeight();
        int64_t total = cast<MemRefType>(matrix.getType()).getNumElements();
        int64_t &done = prefetchedGroups[matrix];
        int64_t groups = std::min(total - done, budget / kGroupBytes);
        if (groups <= 0)
          continue;
        if (!sink)
          sink = addSink(func, func.getLoc());
        if (!sink)
          return made;
        PrefetchOp::create(b, dispatch.getLoc(), matrix, sink, b.getI64IntegerAttr(done),
                           b.getI64IntegerAttr(groups));
        ++made;
        ++bindings;
        done += groups;
        budget -= groups * kGroupBytes;
        pending.push_back({j, groups * kGroupBytes});
        savedMicros[j] += groups * kGroupBytes * (1.0 / memoryBytesPerMicro -
                                                  1.0 / cacheBytesPerMicro);
        if (budget < kGroupBytes)
          break;
      }
    }
  }
  // The readers' estimates: their prefetched groups come from the cache.
  for (auto [dispatch, saved] : llvm::zip(dispatches, savedMicros)) {
    if (saved <= 0)
      continue;
    double micros = std::round(std::max(0.0, estimateOf(dispatch) - saved) * 1000.0) / 1000.0;
    dispatch->setAttr(kEstimatedMicrosAttr,
                      FloatAttr::get(Float64Type::get(dispatch.getContext()), micros));
  }
  // The sink is new: place it (and the scratch again, as the plan numbers
  // slots in one pass) where the program came placed.
  if (sink && canReplanScratch(func))
    replanScratchSlots(func);
  return made;
}

struct KilnPrefetchWeightsPass : impl::KilnPrefetchWeightsBase<KilnPrefetchWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<cost::TargetDesc> target =
        selectTargetFor(module, {targetFile, targetName, targetDir}, "kiln-prefetch-weights");
    if (failed(target))
      return signalPassFailure();
    int64_t bytes =
        cacheBytes >= 0 ? int64_t(cacheBytes) : static_cast<int64_t>(target->prefetchCacheBytes);
    if (bytes <= 0)
      return;
    SmallVector<FunctionOpInterface> funcs;
    module.walk([&](FunctionOpInterface f) { funcs.push_back(f); });
    for (FunctionOpInterface f : funcs)
      if (!f.isExternal() && programRows(f) == 1)
        prefetchProgram(f, *target, bytes, fromMatvecs, maxBindings);
  }
};

} // namespace
} // namespace kiln::stage
