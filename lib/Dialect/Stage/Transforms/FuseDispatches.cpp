//===- FuseDispatches.cpp - Merge dispatches where one kernel is faster ---===//
//
// Per run of consecutive stage.dispatch ops: ASAP reordering (so that
// independent siblings are neighbours), then dynamic programming over the
// dispatch order (kiln::cost::choosePartition) with the legality of
// StageFusion.h and the target's cost model, then the chosen groups are
// merged in place. Existing dispatches are units: a dispatch is never split.
//
// The partition is chosen with a barrier at every boundary: whether a
// boundary needs one depends on the groups before it, which the DP does not
// track. The cheaper boundary of an independent dispatch is applied
// afterwards, in the estimates (docs/fusion.md).
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Stage/Transforms/Passes.h"

#include "kiln/Cost/CostModel.h"
#include "kiln/Cost/Partition.h"
#include "kiln/Dialect/Stage/IR/StageFusion.h"
#include "kiln/Dialect/Stage/IR/StageModule.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"
#include "kiln/Dialect/Stage/Transforms/FusionReport.h"
#include "kiln/Dialect/Stage/Transforms/ScratchSlots.h"
#include "kiln/Dialect/Stage/Transforms/StateBuffers.h"
#include "kiln/Dialect/Stage/Transforms/StageCostAnalysis.h"
#include "kiln/Dialect/Stage/Transforms/TargetSelection.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;

namespace kiln::stage {

#define GEN_PASS_DEF_KILNFUSEDISPATCHES
#include "kiln/Dialect/Stage/Transforms/Passes.h.inc"

namespace {

/// Maximal runs of consecutive dispatches in every block of `func`; any
/// other op between two dispatches ends a run.
SmallVector<SmallVector<DispatchOp>> dispatchRuns(FunctionOpInterface func) {
  SmallVector<SmallVector<DispatchOp>> runs;
  func->walk([&](Block *block) {
    SmallVector<DispatchOp> run;
    for (Operation &op : *block) {
      if (auto dispatch = dyn_cast<DispatchOp>(op)) {
        run.push_back(dispatch);
        continue;
      }
      if (!run.empty())
        runs.push_back(std::move(run));
      run.clear();
    }
    if (!run.empty())
      runs.push_back(std::move(run));
  });
  return runs;
}

SmallVector<Operation *> stagesOf(DispatchOp d) {
  SmallVector<Operation *> ops;
  for (Operation &op : d.getBody().front())
    ops.push_back(&op);
  return ops;
}

/// Dispatches fuse only under the same skip condition (Dory's early exit).
bool sameSkipCondition(DispatchOp a, DispatchOp b) {
  return a.getSkipFlag() == b.getSkipFlag() && a.getSkipWord() == b.getSkipWord();
}

/// Whether one dispatch writes what the other touches (its skip flag too).
bool dispatchesConflict(DispatchOp a, DispatchOp b) {
  for (Operation *x : stagesOf(a))
    for (Operation *y : stagesOf(b))
      if (stagesConflict(x, y))
        return true;
  auto writesFlag = [](DispatchOp writer, DispatchOp reader) {
    Value flag = reader.getSkipFlag();
    if (!flag)
      return false;
    for (Operation *x : stagesOf(writer))
      for (Value written : writtenBuffers(x))
        if (buffersMayAlias(written, flag))
          return true;
    return false;
  };
  return writesFlag(a, b) || writesFlag(b, a);
}

/// ASAP order: a dispatch's level is one more than the highest level of an
/// earlier dispatch it conflicts with; a stable sort by level keeps every
/// conflicting pair in order.
SmallVector<DispatchOp> reorderRun(ArrayRef<DispatchOp> run) {
  SmallVector<int64_t> level(run.size(), 0);
  for (size_t j = 0; j < run.size(); ++j)
    for (size_t i = 0; i < j; ++i)
      if (level[i] + 1 > level[j] && dispatchesConflict(run[i], run[j]))
        level[j] = level[i] + 1;
  SmallVector<size_t> order(run.size());
  for (size_t i = 0; i < run.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return level[a] < level[b]; });
  SmallVector<DispatchOp> sorted;
  for (size_t i : order)
    sorted.push_back(run[i]);
  Operation *anchor = run.back()->getNextNode();
  for (DispatchOp d : sorted) {
    if (anchor)
      d->moveBefore(anchor);
    else
      d->moveBefore(d->getBlock(), d->getBlock()->end());
  }
  return sorted;
}

/// How much slower a tail runs than its stages alone: it runs at the lead's
/// width (a mat-vec's 64-256 threads, a head's 64) where a one-workgroup
/// dispatch takes reduce-workgroup-size (512 on the H200). A slerp's 24 KB
/// stays well under a boundary even so; the sample's 128 KB does not.
constexpr double kTailSlowdown = 4.0;

/// A last-workgroup kernel: the lead on its own grid, then the tail in one
/// workgroup at the lead's width; the counter's atomic round trip is about an
/// unbarriered boundary.
double lastWorkgroupMicros(const cost::CostModel &model, const cost::StageCost &lead,
                           ArrayRef<cost::StageCost> tail) {
  double t = model.stageMicros(lead, lead.workgroups) + model.target().boundaryNoBarrierMicros;
  for (const cost::StageCost &c : tail)
    t += kTailSlowdown * model.stageMicros(c, 1);
  return t;
}

/// The estimate of one kernel holding `stages` in `form` (no form: the
/// stage's own grid), without its boundary.
double kernelMicros(const cost::CostModel &model, const StageCostOptions &priced,
                    ArrayRef<Operation *> stages, std::optional<FusionForm> form) {
  std::vector<cost::StageCost> costs;
  for (Operation *op : stages)
    costs.push_back(stageCostOf(op, priced));
  // [lead, stage.last_workgroup, tail...]
  if (form && *form == FusionForm::LastWorkgroup)
    return lastWorkgroupMicros(model, costs[0], ArrayRef<cost::StageCost>(costs).drop_front(2));
  // [key_scores, key_blocks, attention]: the attention's bytes move onto the
  // scores' grid; the per-head hand-over is about an unbarriered boundary.
  if (form && *form == FusionForm::SplitKeys) {
    cost::StageCost merged = costs[0];
    for (const cost::StageCost &c : ArrayRef<cost::StageCost>(costs).drop_front()) {
      merged.bytesRead += c.bytesRead;
      merged.bytesWritten += c.bytesWritten;
      merged.flops += c.flops;
    }
    return model.stageMicros(merged, merged.workgroups) +
           model.target().boundaryNoBarrierMicros;
  }
  if (!form || *form == FusionForm::OneWorkgroup) {
    // One stage alone runs on its own grid; fused, everything is squeezed
    // into one workgroup (old-style dispatches of several single-workgroup
    // stages are that too).
    if (costs.size() == 1 && !form)
      return model.stageMicros(costs[0], costs[0].workgroups);
    double t = 0;
    for (const cost::StageCost &c : costs)
      t += model.stageMicros(c, 1);
    return t;
  }
  // Pointwise: one stage's grid moving every stage's bytes; a row epilogue
  // likewise on the mat-vecs' grid (a workgroup per row).
  if (*form == FusionForm::Pointwise || *form == FusionForm::RowEpilogue) {
    cost::StageCost merged = costs.front();
    for (const cost::StageCost &c : ArrayRef<cost::StageCost>(costs).drop_front()) {
      merged.bytesRead += c.bytesRead;
      merged.bytesWritten += c.bytesWritten;
      merged.flops += c.flops;
      merged.cacheBytes += c.cacheBytes;
      // Each mat-vec reduces every row; the epilogue's thread adds none.
      if (c.isMatvec)
        merged.barriers += c.barriers;
    }
    return model.stageMicros(merged, merged.workgroups);
  }
  // Concurrent: the stages share the device; none finishes sooner than alone.
  // A member's row epilogue adds bytes, not workgroups.
  SmallVector<bool> leads(costs.size(), false);
  for (const SmallVector<size_t> &member : concurrentMembers(stages))
    leads[member.front()] = true;
  cost::StageCost merged;
  merged.workgroups = 0;
  merged.isMatvec = true;
  double slowest = 0;
  for (auto [i, c] : llvm::enumerate(costs)) {
    merged.bytesRead += c.bytesRead;
    merged.bytesWritten += c.bytesWritten;
    merged.flops += c.flops;
    if (!leads[i])
      continue;
    merged.workgroups += c.workgroups;
    merged.isMatvec &= c.isMatvec;
    merged.quantized |= c.quantized;
    slowest = std::max(slowest, model.stageMicros(c, c.workgroups));
  }
  return std::max(slowest, model.stageMicros(merged, merged.workgroups));
}

std::optional<FusionForm> formOf(DispatchOp d) {
  if (std::optional<StringRef> text = d.getFusion())
    return parseFusionForm(*text);
  if (stagesOf(d).size() > 1)
    return FusionForm::OneWorkgroup;
  return std::nullopt;
}

/// Concurrent stages share one workgroup size: a stage with a workgroup per
/// head (head-workgroup-size) does not mix with a reduction over a whole
/// workgroup (reduce-workgroup-size) or a mat-vec (sized by its rows); nor
/// does a one-workgroup reduction with a mat-vec, which would run at the
/// reduction's width (embryo-1b's gate∥up beside the router, 512 threads a
/// row item: 80 us on the H200, where gate∥up alone takes 22.5).
bool concurrentSizesAgree(ArrayRef<Operation *> stages) {
  bool single = false, rows = false;
  std::optional<OperationName> perHead;
  for (Operation *op : stages) {
    GridKind kind = gridKindOf(op);
    single |= kind == GridKind::SingleWorkgroup;
    rows |= kind == GridKind::RowItems;
    if (single && rows)
      return false;
    if (kind != GridKind::PerWorkgroup)
      continue;
    // Per-head kinds pick their sizes from different options: one kind only.
    if (perHead && *perHead != op->getName())
      return false;
    perHead = op->getName();
  }
  return !(perHead && (single || rows));
}

/// Bindings of one kernel holding `stages`: one per distinct buffer, and the
/// skip flag.
size_t bindingsOf(ArrayRef<Operation *> stages, Value skipFlag) {
  llvm::SmallPtrSet<void *, 32> buffers;
  for (Operation *op : stages)
    for (Value v : op->getOperands())
      buffers.insert(v.getAsOpaquePointer());
  if (skipFlag)
    buffers.insert(skipFlag.getAsOpaquePointer());
  return buffers.size();
}

struct GroupChoice {
  std::optional<FusionForm> form;
  double micros = 0;
};

/// The best legal form for stages of dispatches [i, j), if any.
std::optional<GroupChoice> chooseForm(const cost::CostModel &model,
                                      const StageCostOptions &priced,
                                      ArrayRef<DispatchOp> run, size_t i, size_t j,
                                      unsigned maxBindings) {
  if (j - i == 1) {
    DispatchOp d = run[i];
    return GroupChoice{formOf(d), kernelMicros(model, priced, stagesOf(d), formOf(d))};
  }
  SmallVector<Operation *> all;
  for (size_t k = i; k < j; ++k) {
    if (!sameSkipCondition(run[i], run[k]))
      return std::nullopt;
    all.append(stagesOf(run[k]));
  }
  // The kernel must fit the device's storage buffers per stage.
  if (bindingsOf(all, DispatchOp(run[i]).getSkipFlag()) > maxBindings)
    return std::nullopt;
  std::optional<GroupChoice> best;
  std::string whyNot;
  for (FusionForm form :
       {FusionForm::OneWorkgroup, FusionForm::Concurrent, FusionForm::Pointwise,
        FusionForm::RowEpilogue}) {
    if (!canFuse(form, all, whyNot))
      continue;
    if (form == FusionForm::Concurrent && !concurrentSizesAgree(all))
      continue;
    // Concurrent stages split one grid: it must stay within the 65535
    // workgroups every Vulkan device allows (a streaming add over 16M values
    // alone needs 262144 threads' worth).
    if (form == FusionForm::Concurrent) {
      int64_t grid = 0;
      for (Operation *op : all)
        grid += stageCostOf(op).workgroups;
      if (grid > 65535)
        continue;
    }
    double t = kernelMicros(model, priced, all, form);
    if (!best || t < best->micros)
      best = GroupChoice{form, t};
  }
  return best;
}

void mergeGroup(ArrayRef<DispatchOp> group, std::optional<FusionForm> form) {
  DispatchOp first = group.front();
  std::string name;
  for (DispatchOp d : group)
    if (std::optional<StringRef> part = d.getKernelName())
      name += (name.empty() ? "" : "__") + part->str();
  // Profiles print the name: a long chain keeps its ends and a count.
  std::optional<StringRef> head = DispatchOp(group.front()).getKernelName(),
                           tail = DispatchOp(group.back()).getKernelName();
  if (name.size() > 64 && group.size() > 2 && head && tail)
    name = head->str() + "__" + std::to_string(group.size() - 2) + "_more__" + tail->str();
  Block &body = first.getBody().front();
  for (DispatchOp d : group.drop_front()) {
    body.getOperations().splice(body.end(), d.getBody().front().getOperations());
    d.erase();
  }
  if (!name.empty())
    first.setKernelNameAttr(StringAttr::get(first.getContext(), name));
  if (form && body.getOperations().size() > 1)
    first.setFusionAttr(StringAttr::get(first.getContext(), fusionFormName(*form)));
}

/// Chooses the partition of one run and merges its groups.
void fuseRun(ArrayRef<DispatchOp> run, const cost::CostModel &model,
             const StageCostOptions &priced, unsigned maxGroup, unsigned maxBindings) {
  // Memoised: the DP asks each (i, j) for legality and then for its cost.
  std::map<std::pair<size_t, size_t>, std::optional<GroupChoice>> memo;
  auto choice = [&](size_t i, size_t j) -> const std::optional<GroupChoice> & {
    auto key = std::make_pair(i, j);
    auto it = memo.find(key);
    if (it == memo.end())
      it = memo.emplace(key, chooseForm(model, priced, run, i, j, maxBindings)).first;
    return it->second;
  };
  double boundary = model.target().boundaryMicros;
  cost::Partition partition = cost::choosePartition(
      run.size(),
      [&](size_t i, size_t j) { return j - i <= maxGroup && choice(i, j).has_value(); },
      [&](size_t i, size_t j) { return choice(i, j)->micros + boundary; });
  for (size_t g = 0; g < partition.starts.size(); ++g) {
    size_t begin = partition.starts[g];
    size_t end = g + 1 < partition.starts.size() ? partition.starts[g + 1] : run.size();
    if (end - begin > 1)
      mergeGroup(run.slice(begin, end - begin), choice(begin, end)->form);
  }
}

/// Whether `d` already runs in one workgroup: a one_workgroup group (q8_2f's
/// slerp with the column-field folds after it) or one-workgroup stages alone.
bool isTailCandidate(DispatchOp d) {
  std::optional<FusionForm> form = formOf(d);
  if (form)
    return *form == FusionForm::OneWorkgroup;
  return llvm::all_of(stagesOf(d), [](Operation *op) {
    return gridKindOf(op) == GridKind::SingleWorkgroup;
  });
}

/// Moves each one-workgroup dispatch of `run` up to the nearest dispatch it
/// depends on and makes it that dispatch's last-workgroup tail, where the
/// producer is a lone stage that can lead one and the estimate (one boundary
/// fewer) is lower. `counter` is created on first use.
void fuseLastWorkgroupTails(ArrayRef<DispatchOp> run, const cost::CostModel &model,
                            const StageCostOptions &priced, FunctionOpInterface func,
                            Value &counter, unsigned maxBindings) {
  SmallVector<DispatchOp> order(run.begin(), run.end());
  for (size_t j = 0; j < order.size(); ++j) {
    DispatchOp tail = order[j];
    if (!isTailCandidate(tail))
      continue;
    // The nearest producer: everything after it is independent of the
    // tail, so the tail may move up to it.
    std::optional<size_t> producer;
    for (size_t i = j; i-- > 0;)
      if (dispatchesConflict(order[i], tail)) {
        producer = i;
        break;
      }
    if (!producer)
      continue;
    DispatchOp lead = order[*producer];
    SmallVector<Operation *> leadStages = stagesOf(lead), tailStages = stagesOf(tail);
    std::string whyNot;
    if (formOf(lead) || leadStages.size() != 1 || !sameSkipCondition(lead, tail) ||
        !canRunLastWorkgroupTail(leadStages.front(), tailStages, whyNot))
      continue;
    // The counter is one binding more.
    SmallVector<Operation *> both(leadStages);
    both.append(tailStages);
    if (bindingsOf(both, lead.getSkipFlag()) + 1 > maxBindings)
      continue;
    double apart = kernelMicros(model, priced, leadStages, std::nullopt) +
                   model.target().boundaryMicros +
                   kernelMicros(model, priced, tailStages, formOf(tail));
    SmallVector<cost::StageCost> tailCosts;
    for (Operation *op : tailStages)
      tailCosts.push_back(stageCostOf(op, priced));
    if (lastWorkgroupMicros(model, stageCostOf(leadStages.front(), priced), tailCosts) >= apart)
      continue;
    if (!counter) {
      counter = addStateWords(func, "last_workgroup.counter", 4, func.getLoc());
      if (!counter)
        return;
    }
    OpBuilder b = OpBuilder::atBlockEnd(&lead.getBody().front());
    LastWorkgroupOp::create(b, tail.getLoc(), counter);
    mergeGroup({lead, tail}, FusionForm::LastWorkgroup);
    order.erase(order.begin() + j);
    --j;
  }
}

/// Merges each lone stage.key_scores dispatch of `run` with the lone
/// attention dispatch that reads its scores (the first dispatch after it
/// that it conflicts with) into one split_keys dispatch, where nothing
/// between them touches what the attention does (it moves up) and the
/// merged kernel's bindings fit; with `oversizedOnly`, only attentions
/// past what a kernel of their own holds (exceedsOwnKernelKeys). Returns
/// whether it merged any.
bool splitKeyDispatches(ArrayRef<DispatchOp> run, FunctionOpInterface func,
                        int64_t blockKeys, unsigned maxBindings, bool oversizedOnly) {
  bool merged = false;
  SmallVector<DispatchOp> order(run.begin(), run.end());
  for (size_t i = 0; i < order.size(); ++i) {
    DispatchOp lead = order[i];
    SmallVector<Operation *> leadStages = stagesOf(lead);
    if (formOf(lead) || leadStages.size() != 1 || !isa<KeyScoresOp>(leadStages.front()))
      continue;
    std::optional<size_t> reader;
    for (size_t j = i + 1; j < order.size() && !reader; ++j)
      if (dispatchesConflict(lead, order[j]))
        reader = j;
    if (!reader)
      continue;
    DispatchOp tail = order[*reader];
    SmallVector<Operation *> tailStages = stagesOf(tail);
    std::string whyNot;
    if (formOf(tail) || tailStages.size() != 1 || !sameSkipCondition(lead, tail) ||
        !canSplitKeys(leadStages.front(), tailStages.front(), whyNot) ||
        (oversizedOnly && !exceedsOwnKernelKeys(tailStages.front())))
      continue;
    if (llvm::any_of(ArrayRef<DispatchOp>(order).slice(i + 1, *reader - i - 1),
                     [&](DispatchOp between) { return dispatchesConflict(between, tail); }))
      continue;
    SmallVector<Operation *> both{leadStages.front(), tailStages.front()};
    // The partials and the counters are two bindings more.
    if (bindingsOf(both, lead.getSkipFlag()) + 2 > maxBindings)
      continue;
    SmallVector<int64_t, 3> shape = splitKeysPartialsShape(leadStages.front(), blockKeys);
    std::string name = lead.getKernelName().value_or("attention").str();
    auto partialsType = MemRefType::get(shape, Float32Type::get(func->getContext()));
    Value partials = addStateBuffer(func, name + ".partials", partialsType, lead.getLoc());
    Value counters = partials ? addStateWords(func, name + ".counters", shape[0], lead.getLoc())
                              : Value();
    if (!counters)
      return merged;
    OpBuilder b = OpBuilder::atBlockEnd(&lead.getBody().front());
    KeyBlocksOp::create(b, tail.getLoc(), partials, counters,
                        b.getI64IntegerAttr(blockKeys));
    mergeGroup({lead, tail}, FusionForm::SplitKeys);
    order.erase(order.begin() + *reader);
    merged = true;
  }
  return merged;
}

/// Sets stage.estimated_us on every dispatch of the run: its kernel plus a
/// boundary, without a barrier when it conflicts with no dispatch since the
/// last barrier (the plan writer's rule, docs/pipeline.md).
void annotate(ArrayRef<DispatchOp> run, const cost::CostModel &model,
              const StageCostOptions &priced) {
  SmallVector<DispatchOp> sinceBarrier;
  for (DispatchOp d : run) {
    bool independent = !sinceBarrier.empty() &&
                       llvm::none_of(sinceBarrier, [&](DispatchOp earlier) {
                         return dispatchesConflict(earlier, d);
                       });
    if (!independent)
      sinceBarrier.clear();
    sinceBarrier.push_back(d);
    const cost::TargetDesc &t = model.target();
    double micros = kernelMicros(model, priced, stagesOf(d), formOf(d)) +
                    (independent ? t.boundaryNoBarrierMicros : t.boundaryMicros);
    // Nanosecond resolution keeps the printed attribute short.
    micros = std::round(micros * 1000.0) / 1000.0;
    d->setAttr(kEstimatedMicrosAttr,
               FloatAttr::get(Float64Type::get(d.getContext()), micros));
  }
}

struct KilnFuseDispatchesPass
    : impl::KilnFuseDispatchesBase<KilnFuseDispatchesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<cost::TargetDesc> target =
        selectTargetFor(module, {targetFile, targetName, targetDir}, "kiln-fuse-dispatches");
    if (failed(target))
      return signalPassFailure();
    if (boundaryMicros >= 0) {
      target->boundaryMicros = boundaryMicros;
      target->boundaryNoBarrierMicros = boundaryMicros;
    }
    if (maxGroup < 1) {
      module.emitError("kiln-fuse-dispatches: max-group must be at least 1");
      return signalPassFailure();
    }
    std::unique_ptr<cost::CostModel> model =
        cost::createAnalyticalCostModel(*target);
    StageCostOptions priced;
    priced.position = position;

    // A multi-row program (@prefill) runs its stages as they are: fusion
    // forms and the cost model price one row.
    SmallVector<FunctionOpInterface> funcs;
    module.walk([&](FunctionOpInterface f) {
      if (programRows(f) == 1)
        funcs.push_back(f);
    });
    if (blockKeys < 1) {
      module.emitError("kiln-fuse-dispatches: block-keys must be at least 1");
      return signalPassFailure();
    }
    for (FunctionOpInterface f : funcs) {
      bool canReplan = canReplanScratch(f);
      bool replan = fuse && canReplan;
      if (replan)
        releaseScratchSlots(f);
      // An attention past what a kernel of its own holds is split whatever
      // the switches say: it has no other kernel. Its new state buffers are
      // placed by the memory plan, run again for them without fusion too.
      bool split = false;
      for (SmallVector<DispatchOp> &run : dispatchRuns(f))
        split |= splitKeyDispatches(run, f, blockKeys, maxBindings,
                                    /*oversizedOnly=*/!(fuse && splitAttention));
      if (split && canReplan && !replan) {
        releaseScratchSlots(f);
        replan = true;
      }
      for (SmallVector<DispatchOp> &run : dispatchRuns(f)) {
        if (!fuse)
          continue;
        SmallVector<DispatchOp> ordered = reorder ? reorderRun(run) : run;
        fuseRun(ordered, *model, priced, maxGroup, maxBindings);
      }
      if (fuse && lastWorkgroupTails) {
        Value counter;
        for (SmallVector<DispatchOp> &run : dispatchRuns(f))
          fuseLastWorkgroupTails(run, *model, priced, f, counter, maxBindings);
      }
      if (replan)
        replanScratchSlots(f);
      for (SmallVector<DispatchOp> &run : dispatchRuns(f))
        annotate(run, *model, priced);
    }
    module->setAttr(kTargetNameAttr, StringAttr::get(&getContext(), target->name));
    if (emitReport)
      // Not op.emitRemark: that would print the whole module beside it.
      mlir::emitRemark(module.getLoc()) << formatFusionReport(buildFusionReport(module));
  }
};

} // namespace
} // namespace kiln::stage
