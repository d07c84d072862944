//===- ConvertStageToGPU.cpp - stage.dispatch -> gpu.func + launch --------===//
//
// Each dispatch becomes one kernel. Its bindings are the memrefs its stages
// use, in order of first use; the dispatch is replaced by a gpu.launch_func
// that records the grid and that order for the plan writer.
//
//===----------------------------------------------------------------------===//
#include "DoryFarField.h"
#include "KernelBuilder.h"
#include "KeyScores.h"
#include "Prefetch.h"
#include "Rows.h"
#include "VectorViews.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Stage/IR/StageFusion.h"
#include "kiln/Dialect/Stage/IR/StageModule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace kiln {

#define GEN_PASS_DEF_CONVERTSTAGETOGPU
#include "kiln/Conversion/Passes.h.inc"

namespace {

/// An attention kernel of its own holds every weight of a head in workgroup
/// memory (a split_keys dispatch does not: kiln-fuse-dispatches splits those
/// past the limit).
LogicalResult verifyHeldWeights(Operation *op) {
  auto dispatch = dyn_cast_or_null<stage::DispatchOp>(op->getParentOp());
  if (!isa<stage::AttentionOp, stage::WindowAttentionOp>(op) ||
      !stage::exceedsOwnKernelKeys(op) ||
      (dispatch &&
       dispatch.getFusion() == stage::fusionFormName(stage::FusionForm::SplitKeys)))
    return success();
  if (auto attention = dyn_cast<stage::AttentionOp>(op))
    return attention.emitOpError("sinks + ring window = ")
           << attention.getMaxKeys() << " keys exceed the " << stage::AttentionOp::kMaxKeys
           << " weights a workgroup holds (as a kernel of its own; in a split_keys dispatch "
              "there is no such limit)";
  auto window = cast<stage::WindowAttentionOp>(op);
  int64_t sinks = window.getNumSinks(), keys = static_cast<int64_t>(window.getWindow());
  return window.emitOpError("sinks + window = ")
         << sinks << " + " << keys << " = " << sinks + keys << " exceeds the "
         << stage::WindowAttentionOp::kMaxWindow
         << " near scores a workgroup holds (as a kernel of its own; in a split_keys "
            "dispatch there is no such limit)";
}

FailureOr<KernelShape> shapeOfStage(Operation *op, const StageToGPUOptions &o) {
  if (failed(verifyHeldWeights(op)))
    return failure();
  return llvm::TypeSwitch<Operation *, FailureOr<KernelShape>>(op)
      .Case<stage::EmbedGatherOp, stage::RMSNormOp, stage::MatVecOp,
            stage::ConvRingOp, stage::GdnStepOp, stage::RopeKvWriteOp,
            stage::KeyScoresOp, stage::AttentionOp, stage::RouterOp, stage::ClusterLogitsOp,
            stage::HeadRowsOp, stage::DoryPrepOp, stage::SlerpOp,
            stage::DoryMixOp, stage::SampleOp>(
          [&](auto stageOp) { return shapeOf(stageOp, o); })
      .Case<stage::SiluMulOp, stage::AddOp, stage::MulOp, stage::SigmoidGateOp>(
          [&](Operation *e) { return shapeOfElementwise(e, o); })
      .Case<stage::WindowAttentionOp, stage::FarFieldPushOp,
            stage::LandmarkCaptureOp, stage::LandmarkSealOp, stage::ExitTestOp,
            stage::LastWorkgroupOp, stage::KeyBlocksOp>(
          [&](auto stageOp) { return shapeOf(stageOp, o); })
      .Default([](Operation *other) -> FailureOr<KernelShape> {
        return other->emitOpError("has no GPU kernel"), failure();
      });
}

void buildStage(Operation *op, KernelBuilder &kb) {
  llvm::TypeSwitch<Operation *>(op)
      .Case<stage::EmbedGatherOp, stage::RMSNormOp, stage::MatVecOp,
            stage::ConvRingOp, stage::GdnStepOp, stage::RopeKvWriteOp,
            stage::KeyScoresOp, stage::AttentionOp, stage::RouterOp, stage::ClusterLogitsOp,
            stage::HeadRowsOp, stage::DoryPrepOp, stage::SlerpOp,
            stage::DoryMixOp, stage::SampleOp>(
          [&](auto stageOp) { buildKernel(stageOp, kb); })
      .Case<stage::SiluMulOp, stage::AddOp, stage::MulOp, stage::SigmoidGateOp>(
          [&](Operation *e) { buildElementwiseKernel(e, kb); })
      .Case<stage::WindowAttentionOp, stage::FarFieldPushOp,
            stage::LandmarkCaptureOp, stage::LandmarkSealOp, stage::ExitTestOp>(
          [&](auto stageOp) { buildKernel(stageOp, kb); });
}

/// Whether the target named by the module's spirv.target_env has `wanted`
/// (GroupNonUniformArithmetic: it can reduce across a subgroup).
bool targetHasCapability(ModuleOp module, spirv::Capability wanted) {
  auto env = module->getAttrOfType<spirv::TargetEnvAttr>(
      spirv::getTargetEnvAttrName());
  if (!env)
    return false;
  return llvm::is_contained(env.getCapabilities(), wanted);
}

/// A concurrent kernel's layout: its members (stage indices: a stage, or a
/// mat-vec with its row epilogue; StageFusion.h) and each one's workgroups.
struct ConcurrentLayout {
  SmallVector<SmallVector<size_t>> members;
  SmallVector<int64_t> ranges;
};

/// A dispatch's prefetches (detached from its body while the kernel is
/// built) and their workgroups, appended after the stages' `base`.
struct PrefetchLayout {
  SmallVector<stage::PrefetchOp> ops;
  SmallVector<int64_t> ranges;
  int64_t base = 0;
};

SmallVector<Operation *> stagesOf(Block &body) {
  SmallVector<Operation *> ops;
  for (Operation &op : body)
    ops.push_back(&op);
  return ops;
}

/// Threads a per-thread stage's own grid covers (its guard stops the rest).
int64_t threadsOf(const KernelShape &own) {
  return own.workgroups * own.workgroupSize;
}

/// The kernel shape of a fused dispatch (docs/fusion.md): the widest stage's
/// workgroup size; stages with a reduction over their workgroup keep theirs,
/// so all of those must agree. Concurrent: each stage's range of the grid.
LogicalResult fusedShape(stage::DispatchOp dispatch, stage::FusionForm form,
                         ArrayRef<KernelShape> shapes, KernelShape &shape,
                         ConcurrentLayout &layout, const StageToGPUOptions &options) {
  Block &body = dispatch.getBody().front();
  if (form == stage::FusionForm::Pointwise) {
    // One index space: every stage's own grid is the kernel's.
    shape = shapes.front();
    for (auto [op, own] : llvm::zip(body, shapes))
      if (own.workgroupSize != shape.workgroupSize || own.workgroups != shape.workgroups)
        return op.emitOpError("runs ")
               << own.workgroups << " x " << own.workgroupSize << " threads, but the pointwise "
               << "kernel " << shape.workgroups << " x " << shape.workgroupSize
               << ": pointwise stages share one grid";
    return success();
  }
  if (form == stage::FusionForm::LastWorkgroup) {
    // The lead's own grid; the tail runs in one of its workgroups, at its
    // width.
    shape = shapes.front();
    return success();
  }
  if (form == stage::FusionForm::SplitKeys) {
    SmallVector<Operation *> ops = stagesOf(body);
    shape = splitKeysShape(cast<stage::KeyScoresOp>(ops[0]), cast<stage::KeyBlocksOp>(ops[1]),
                           options);
    return success();
  }
  if (form == stage::FusionForm::RowEpilogue) {
    // The mat-vecs' grid: a workgroup per row (capped, walking the rest).
    shape = shapes.front();
    for (auto [op, own] : llvm::zip(body, shapes))
      if (isa<stage::MatVecOp>(op) && own.workgroupSize != shape.workgroupSize)
        return op.emitOpError("runs ")
               << own.workgroupSize << " threads a row, stage #0 " << shape.workgroupSize
               << ": a row epilogue's mat-vecs share one workgroup size";
    return success();
  }
  shape.workgroupSize = 0;
  for (const KernelShape &s : shapes)
    shape.workgroupSize = std::max(shape.workgroupSize, s.workgroupSize);
  auto hasFixedSize = [](Operation &op) {
    stage::GridKind kind = stage::gridKindOf(&op);
    return kind == stage::GridKind::SingleWorkgroup || kind == stage::GridKind::PerWorkgroup;
  };
  if (form == stage::FusionForm::OneWorkgroup) {
    // The one workgroup walks every stage's items in turn, at the width of
    // the stages that reduce over it (a mat-vec or gather of a wider own
    // grid walks at that width too); with none, at the reducing width (4x
    // the elementwise one) so each step covers more (docs/fusion.md).
    int64_t fixedSize = 0;
    for (auto [op, own] : llvm::zip(body, shapes)) {
      if (!hasFixedSize(op))
        continue;
      if (fixedSize && own.workgroupSize != fixedSize)
        return op.emitOpError("reduces over a workgroup of ")
               << own.workgroupSize << " threads, but an earlier stage of the kernel over "
               << fixedSize << ": fused stages with their own workgroup size must agree";
      fixedSize = own.workgroupSize;
    }
    shape.workgroupSize =
        fixedSize ? fixedSize : std::max(shape.workgroupSize, options.reduceWorkgroupSize);
    shape.workgroups = 1;
    return success();
  }
  for (auto [op, own] : llvm::zip(body, shapes))
    if (hasFixedSize(op) && own.workgroupSize != shape.workgroupSize)
      return op.emitOpError("reduces over a workgroup of ")
             << own.workgroupSize << " threads, but the fused kernel has "
             << shape.workgroupSize
             << ": fused stages with their own workgroup size must agree";
  // One range per member: a row epilogue rides on its mat-vec's workgroups.
  SmallVector<Operation *> ops = stagesOf(body);
  layout.members = stage::concurrentMembers(ops);
  shape.workgroups = 0;
  for (const SmallVector<size_t> &member : layout.members) {
    Operation *op = ops[member.front()];
    const KernelShape &own = shapes[member.front()];
    int64_t count = own.workgroups;
    if (stage::gridKindOf(op) == stage::GridKind::PerThread)
      count = ceilDiv(threadsOf(own), shape.workgroupSize);
    layout.ranges.push_back(count);
    shape.workgroups += count;
  }
  if (shape.workgroups > kMaxGridWorkgroups)
    return dispatch.emitOpError("concurrent stages need ")
           << shape.workgroups << " workgroups, more than " << kMaxGridWorkgroups;
  return success();
}

/// Mat-vecs a workgroup per row, then `tail` for that row in the thread
/// holding the row's values (globalId() is the row while it builds).
void buildRowEpilogue(ArrayRef<stage::MatVecOp> matvecs, ArrayRef<Operation *> tail,
                      KernelBuilder &kb) {
  buildRowEpilogueKernel(matvecs, kb, [&](Value row) {
    kb.setVirtualGlobalId(row);
    for (Operation *op : tail)
      buildStage(op, kb);
    kb.setVirtualGlobalId(Value());
  });
}

/// `ops` in order in one workgroup with a barrier between them; a per-thread
/// stage loops over its workgroups, a mat-vec walks all its rows.
void buildInOneWorkgroup(ArrayRef<Operation *> ops, ArrayRef<KernelShape> shapes,
                         KernelBuilder &kb) {
  int64_t size = kb.getWorkgroupSize();
  bool first = true;
  for (auto [op, own] : llvm::zip(ops, shapes)) {
    // The next stage may read what this one wrote.
    if (!first)
      kb.barrier();
    first = false;
    switch (stage::gridKindOf(op)) {
    case stage::GridKind::PerThread: {
      int64_t count = ceilDiv(threadsOf(own), size);
      kb.forLoop(kb.index(0), kb.index(count), kb.index(1), [&](Value v) {
        kb.setVirtualWorkgroup(v, count);
        buildStage(op, kb);
        kb.setVirtualWorkgroup(Value(), 0);
      });
      break;
    }
    case stage::GridKind::RowItems:
      kb.setVirtualWorkgroup(kb.index(0), 1);
      buildStage(op, kb);
      kb.setVirtualWorkgroup(Value(), 0);
      break;
    default:
      buildStage(op, kb);
    }
  }
}

/// The body of a fused kernel. OneWorkgroup: buildInOneWorkgroup.
/// Concurrent: workgroup w runs the member whose range holds it, as that
/// member's workgroup w - start. Pointwise: every stage in turn, no barrier.
/// RowEpilogue: buildRowEpilogue. LastWorkgroup: the lead on its grid, then
/// the tail as one workgroup in the last workgroup to finish.
void buildFused(Block &body, stage::FusionForm form,
                ArrayRef<KernelShape> shapes, const ConcurrentLayout &layout,
                KernelBuilder &kb) {
  if (form == stage::FusionForm::LastWorkgroup) {
    SmallVector<Operation *> ops = stagesOf(body);
    buildStage(ops[0], kb);
    buildLastWorkgroupTail(cast<stage::LastWorkgroupOp>(ops[1]), kb, [&] {
      buildInOneWorkgroup(ArrayRef<Operation *>(ops).drop_front(2), shapes.drop_front(2), kb);
    });
    return;
  }
  if (form == stage::FusionForm::SplitKeys) {
    SmallVector<Operation *> ops = stagesOf(body);
    buildSplitKeys(cast<stage::KeyScoresOp>(ops[0]), cast<stage::KeyBlocksOp>(ops[1]), ops[2],
                   kb);
    return;
  }
  if (form == stage::FusionForm::RowEpilogue) {
    SmallVector<stage::MatVecOp> matvecs;
    SmallVector<Operation *> tail;
    for (Operation &op : body) {
      if (auto mv = dyn_cast<stage::MatVecOp>(op); mv && tail.empty())
        matvecs.push_back(mv);
      else
        tail.push_back(&op);
    }
    buildRowEpilogue(matvecs, tail, kb);
    return;
  }
  if (form == stage::FusionForm::Pointwise) {
    // Thread i: element i of every stage, in program order; no barrier.
    for (Operation &op : body)
      buildStage(&op, kb);
    return;
  }
  if (form == stage::FusionForm::Concurrent) {
    SmallVector<Operation *> ops = stagesOf(body);
    Value wg = kb.workgroupId();
    int64_t start = 0;
    for (auto [member, count] : llvm::zip(layout.members, layout.ranges)) {
      Value local = kb.sub(wg, kb.index(start));
      // Unsigned: a workgroup before the range wraps past it.
      kb.ifThen(kb.ult(local, kb.index(count)), [&] {
        kb.setVirtualWorkgroup(local, count);
        if (member.size() == 1) {
          buildStage(ops[member.front()], kb);
        } else {
          // A mat-vec and its row epilogue.
          SmallVector<Operation *> tail;
          for (size_t i : ArrayRef<size_t>(member).drop_front())
            tail.push_back(ops[i]);
          buildRowEpilogue({cast<stage::MatVecOp>(ops[member.front()])}, tail, kb);
        }
        kb.setVirtualWorkgroup(Value(), 0);
      });
      start += count;
    }
    return;
  }
  buildInOneWorkgroup(stagesOf(body), shapes, kb);
}

/// Bindings a kernel may take: the runtime's plan verifier numbers them 0..31
/// (runtime/src/plan/plan_verifier.cc).
constexpr int64_t kMaxKernelBindings = 32;

/// One kernel argument: a stage buffer, or its vector<4xf32> view
/// (VectorViews.h).
struct KernelArg {
  Value buffer;
  bool view = false;
  /// A multi-row program's activation, bound with all its rows (Rows.h).
  bool rows = false;
};

/// How a multi-row program's kernel runs its rows (Rows.h); no mode in a
/// one-row program.
struct RowLayout {
  std::optional<RowMode> mode;
  int64_t rows = 1;
  /// The host function's params buffer, which the kernel reads its row count from.
  Value params;
};

/// The kernel of `dispatch` (its stages built by KernelBuilder) appended to
/// `gpuModule` as `name`.
gpu::GPUFuncOp buildKernelFunc(stage::DispatchOp dispatch, StringRef name,
                               gpu::GPUModuleOp gpuModule, ArrayRef<KernelArg> bindings,
                               std::optional<stage::FusionForm> form,
                               ArrayRef<KernelShape> shapes, const KernelShape &shape,
                               const ConcurrentLayout &layout,
                               const PrefetchLayout &prefetch, const RowLayout &rows,
                               const StageToGPUOptions &options) {
  Block &body = dispatch.getBody().front();
  OpBuilder builder(gpuModule.getBodyRegion());
  builder.setInsertionPointToEnd(gpuModule.getBody());
  SmallVector<Type> argTypes;
  for (const KernelArg &arg : bindings)
    argTypes.push_back(arg.view   ? vectorViewType(arg.buffer)
                       : arg.rows ? rowsType(arg.buffer)
                                  : arg.buffer.getType());
  Location loc = dispatch.getLoc();
  auto func = gpu::GPUFuncOp::create(builder,
      loc, name, builder.getFunctionType(argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(
      {static_cast<int32_t>(shape.workgroupSize), 1, 1}));

  IRMapping mapping, views;
  llvm::DenseSet<Value> rowArgs;
  for (auto [index, arg] : llvm::enumerate(bindings)) {
    (arg.view ? views : mapping).map(arg.buffer, func.getArgument(index));
    if (arg.rows)
      rowArgs.insert(func.getArgument(index));
  }
  builder.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder kb(builder, loc, func, mapping, shape.workgroupSize, options);
  kb.setVectorViews(&views);
  kb.setRowBuffers(&rowArgs);
  Operation *skipGuard = openSkipGuard(dispatch, kb);
  auto buildStages = [&] {
    if (form) {
      buildFused(body, *form, shapes, layout, kb);
      return;
    }
    bool first = true;
    for (Operation &op : body) {
      // Fused single-workgroup stages: the next one may read what this wrote.
      if (!first)
        kb.barrier();
      first = false;
      buildStage(&op, kb);
    }
  };
  if (rows.mode) {
    buildRows(*rows.mode, mapping.lookup(rows.params), shape.workgroups, kb, buildStages,
              [&](Value count) {
                if (auto gdn = dyn_cast<stage::GdnStepOp>(body.front()))
                  buildGdnRows(gdn, count, rows.rows, kb);
                else
                  buildRowsTogether(cast<stage::MatVecOp>(body.front()), count, rows.rows, kb);
              });
  } else if (prefetch.ops.empty()) {
    buildStages();
  } else {
    // The stages keep workgroups 0 .. base - 1 (their ids and grid as
    // without prefetches); each prefetch takes a range after them.
    Value wg = kb.workgroupId();
    kb.ifThenElse(kb.ult(wg, kb.index(prefetch.base)), buildStages, [&] {
      int64_t start = prefetch.base;
      for (auto [op, count] : llvm::zip(prefetch.ops, prefetch.ranges)) {
        Value local = kb.sub(wg, kb.index(start));
        kb.ifThen(kb.ult(local, kb.index(count)), [&] { buildPrefetch(op, local, kb); });
        start += count;
      }
    });
  }
  if (skipGuard)
    builder.setInsertionPointAfter(skipGuard);
  gpu::ReturnOp::create(builder, loc);

  return func;
}

/// Bytes of workgroup memory `func` declares (its workgroup attributions).
int64_t workgroupMemoryBytes(gpu::GPUFuncOp func) {
  int64_t bytes = 0;
  for (BlockArgument buffer : func.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(buffer.getType());
    Type element = type.getElementType();
    int64_t lanes = 1;
    if (auto vector = dyn_cast<VectorType>(element))
      lanes = vector.getNumElements(), element = vector.getElementType();
    bytes += type.getNumElements() * lanes * element.getIntOrFloatBitWidth() / 8;
  }
  return bytes;
}

/// `bindings` without the views the kernel `func` does not use or whose
/// buffer it writes (two bindings of one range must not see each other's
/// stores).
SmallVector<KernelArg> usedViews(gpu::GPUFuncOp func, ArrayRef<KernelArg> bindings) {
  SmallVector<KernelArg> kept;
  for (auto [index, arg] : llvm::enumerate(bindings)) {
    if (arg.view) {
      if (func.getArgument(index).use_empty())
        continue;
      auto scalar = llvm::find_if(bindings, [&](const KernelArg &other) {
        return !other.view && other.buffer == arg.buffer;
      });
      if (writesArgument(func, func.getArgument(scalar - bindings.begin())))
        continue;
    }
    kept.push_back(arg);
  }
  return kept;
}

LogicalResult lowerDispatch(stage::DispatchOp dispatch, StringRef name,
                            gpu::GPUModuleOp gpuModule, const StageToGPUOptions &options,
                            llvm::DenseMap<Value, Value> &hostViews,
                            llvm::DenseMap<Value, Value> &hostRows) {
  Block &body = dispatch.getBody().front();
  // Prefetches trail the stages (the dispatch's verifier): out of the body,
  // every form sees only its stages; their buffers bind after the stages'.
  PrefetchLayout prefetch;
  for (auto op : llvm::make_early_inc_range(body.getOps<stage::PrefetchOp>())) {
    op->remove();
    prefetch.ops.push_back(op);
  }
  llvm::scope_exit destroyPrefetches([&] {
    for (stage::PrefetchOp op : prefetch.ops)
      op->destroy();
  });
  llvm::SetVector<Value> bindings;
  SmallVector<KernelShape> shapes;
  for (Operation &op : body) {
    for (Value operand : op.getOperands()) {
      if (!isa<MemRefType>(operand.getType()))
        return op.emitOpError("operand of type ")
               << operand.getType() << " is not a buffer";
      bindings.insert(operand);
    }
    FailureOr<KernelShape> shape = shapeOfStage(&op, options);
    if (failed(shape))
      return failure();
    shapes.push_back(*shape);
  }
  llvm::DenseSet<Value> usedByStages(bindings.begin(), bindings.end());
  for (stage::PrefetchOp op : prefetch.ops)
    bindings.insert(op->operand_begin(), op->operand_end());
  std::optional<stage::FusionForm> form;
  if (std::optional<StringRef> text = dispatch.getFusion())
    form = stage::parseFusionForm(*text);
  // A multi-row program (@prefill): its stages, unfused, for each call row.
  RowLayout rows;
  rows.rows = stage::programRows(dispatch->getParentOp());
  if (rows.rows > 1) {
    if (form || !prefetch.ops.empty() || dispatch.getSkipFlag())
      return dispatch.emitOpError("of a multi-row program runs its stages unfused, "
                                  "without prefetches or a skip flag");
    FailureOr<RowMode> mode = rowModeOf(dispatch, body, rows.rows, options);
    if (failed(mode))
      return failure();
    rows.mode = *mode;
    if (auto gdn = dyn_cast<stage::GdnStepOp>(body.front());
        gdn && *mode == RowMode::Together)
      shapes.front() = {gdnRowsWidth(gdn, rows.rows, options),
                        memrefSize(gdn.getState(), 0) * gdnRowsParts(gdn, options)};
    else if (*mode == RowMode::Together)
      shapes.front() =
          shapeOfRowsTogether(cast<stage::MatVecOp>(body.front()), rows.rows, options);
    rows.params = paramsArgument(dispatch->getParentOp());
    if (!rows.params)
      return dispatch.emitOpError("of a multi-row program: the program has no params "
                                  "buffer to read its row count from");
    bindings.insert(rows.params);
  }
  Value flag = dispatch.getSkipFlag();
  bool flagApart = flag && !bindings.contains(flag);
  int64_t needed = bindings.size() + (flagApart ? 1 : 0);
  if (needed > kMaxKernelBindings)
    return dispatch.emitOpError("binds ")
           << needed << " buffers; a kernel takes at most " << kMaxKernelBindings
           << " (the runtime's plan verifier)";
  SmallVector<KernelArg> args;
  for (Value v : bindings)
    args.push_back({v, /*view=*/false, /*rows=*/stage::bufferRows(v) > 1});
  // Vector views of activation buffers, after the stage operands, as many as
  // the binding limit leaves room for.
  for (Value v : vectorViewCandidates(body, options))
    if (needed < kMaxKernelBindings) {
      args.push_back({v, /*view=*/true});
      ++needed;
    }
  // Dory's early exit: the skip flag is the kernel's last binding.
  if (flagApart)
    args.push_back({flag});
  KernelShape shape = shapes.front();
  ConcurrentLayout layout;
  if (form) {
    if (failed(fusedShape(dispatch, *form, shapes, shape, layout, options)))
      return failure();
  } else {
    for (const KernelShape &other : shapes)
      if (shapes.size() > 1 && other.workgroups != 1 || other.workgroupSize != shape.workgroupSize)
        return dispatch.emitOpError(
            "fused stages must all run in one workgroup of one size");
  }
  prefetch.base = shape.workgroups;
  for (stage::PrefetchOp op : prefetch.ops) {
    prefetch.ranges.push_back(prefetchWorkgroups(op, shape.workgroupSize));
    shape.workgroups += prefetch.ranges.back();
  }
  // A stage's own grid may be wider where the device allows it; the
  // prefetches' workgroups stay within what every device does.
  if (!prefetch.ops.empty() && shape.workgroups > kMaxGridWorkgroups)
    return dispatch.emitOpError("with its prefetches needs ")
           << shape.workgroups << " workgroups, more than " << kMaxGridWorkgroups;

  Location loc = dispatch.getLoc();
  gpu::GPUFuncOp func =
      buildKernelFunc(dispatch, name, gpuModule, args, form, shapes, shape, layout, prefetch,
                      rows, options);
  // Dropping one view can leave another unused (a mat-vec reads views only
  // when it has one of every buffer): build again until none is dropped.
  for (SmallVector<KernelArg> kept = usedViews(func, args); kept.size() != args.size();
       kept = usedViews(func, args)) {
    func.erase();
    args = std::move(kept);
    func = buildKernelFunc(dispatch, name, gpuModule, args, form, shapes, shape, layout,
                           prefetch, rows, options);
  }
  if (int64_t limit = options.maxWorkgroupMemoryBytes; limit > 0) {
    int64_t bytes = workgroupMemoryBytes(func);
    // Sums taken beside the dots widen the closing reduction, a staged input
    // takes its columns: without either, the kernel may fit.
    bool sumsBeside = options.matvecSlerpAfterDots || options.matvecNormAfterDots.f16 ||
                      options.matvecNormAfterDots.q8 || options.matvecStageInput;
    if (bytes > limit && sumsBeside) {
      StageToGPUOptions narrower = options;
      narrower.matvecNormAfterDots = {};
      narrower.matvecSlerpAfterDots = false;
      narrower.matvecStageInput = false;
      func.erase();
      func = buildKernelFunc(dispatch, name, gpuModule, args, form, shapes, shape, layout,
                             prefetch, rows, narrower);
      bytes = workgroupMemoryBytes(func);
    }
    if (bytes > limit)
      return dispatch.emitOpError("kernel '")
             << name << "' needs " << bytes
             << " bytes of workgroup memory; the target allows " << limit
             << " (max_shared_memory_bytes)";
  }

  OpBuilder host(dispatch);
  auto dim = [&](int64_t v) {
    return arith::ConstantIndexOp::create(host, loc, v).getResult();
  };
  Value one = dim(1);
  SmallVector<Value> operands;
  for (const KernelArg &arg : args) {
    operands.push_back(arg.view   ? hostVectorView(arg.buffer, hostViews)
                       : arg.rows ? hostRowsView(arg.buffer, hostRows)
                                  : arg.buffer);
    if (!operands.back())
      return dispatch.emitOpError("cannot add a vector view of a host-function argument");
  }
  // Rows apart: workgroup (row, own workgroup); a row's neighbours read the
  // same weights.
  gpu::KernelDim3 grid{dim(shape.workgroups), one, one};
  if (rows.mode == RowMode::Apart)
    grid = {dim(rows.rows), dim(shape.workgroups), one};
  auto launch = gpu::LaunchFuncOp::create(host,
      loc, func, grid,
      gpu::KernelDim3{dim(shape.workgroupSize), one, one},
      /*dynamicSharedMemorySize=*/Value(), operands);
  // The fusion pass's estimate travels to the plan (kiln-run --profile).
  if (Attribute estimate = dispatch->getAttr(stage::kEstimatedMicrosAttr))
    launch->setAttr(stage::kEstimatedMicrosAttr, estimate);
  // Stages that act only in a session's first call (Dory's landmark seal): the
  // runtime leaves their dispatch out of every later one.
  if (dispatch.runsInFirstCallOnly())
    launch->setAttr(stage::kFirstCallOnlyAttr, host.getUnitAttr());
  if (!prefetch.ops.empty()) {
    SmallVector<int64_t> prefetchOnly;
    for (auto [index, arg] : llvm::enumerate(args))
      if (!arg.view && !usedByStages.contains(arg.buffer))
        prefetchOnly.push_back(static_cast<int64_t>(index));
    launch->setAttr(stage::kPrefetchOnlyArgsAttr, host.getDenseI64ArrayAttr(prefetchOnly));
  }
  dispatch.erase();
  return success();
}

/// Kernels whose bodies are the same op for op (a layer's kernel and the next
/// layer's, which differ only in their bindings) become one: every launch of a
/// duplicate calls the first, and keeps its own name as its label (profiles
/// and kernel tables still tell the layers apart). One kernel is one shader
/// module and pipeline, compiled once.
void mergeIdenticalKernels(ModuleOp module, gpu::GPUModuleOp gpuModule) {
  llvm::StringMap<StringAttr> firstWithBody;
  llvm::DenseMap<StringAttr, StringAttr> replacement;
  for (auto func : llvm::make_early_inc_range(gpuModule.getOps<gpu::GPUFuncOp>())) {
    std::string text;
    llvm::raw_string_ostream os(text);
    // The body and signature without the symbol: print, then drop the name.
    func.print(os, OpPrintingFlags().useLocalScope());
    std::string name = ("@" + func.getName() + "(").str();
    if (size_t at = text.find(name); at != std::string::npos)
      text.erase(at + 1, func.getName().size());
    auto [it, inserted] = firstWithBody.try_emplace(text, func.getNameAttr());
    if (inserted)
      continue;
    replacement[func.getNameAttr()] = it->second;
    func.erase();
  }
  if (replacement.empty())
    return;
  module.walk([&](gpu::LaunchFuncOp launch) {
    StringAttr callee = launch.getKernelName();
    auto it = replacement.find(callee);
    if (!launch->hasAttr(stage::kDispatchLabelAttr))
      launch->setAttr(stage::kDispatchLabelAttr, callee);
    if (it == replacement.end())
      return;
    launch.setKernelAttr(SymbolRefAttr::get(gpuModule.getNameAttr(),
                                            {FlatSymbolRefAttr::get(it->second)}));
  });
}

} // namespace

LogicalResult convertStagesToGPU(ModuleOp module,
                                 const StageToGPUOptions &options) {
  SmallVector<stage::DispatchOp> dispatches;
  module.walk([&](stage::DispatchOp op) { dispatches.push_back(op); });
  if (dispatches.empty())
    return success();
  // Callers outside a pass manager may not have loaded what kernels use.
  module.getContext()
      ->loadDialect<arith::ArithDialect, gpu::GPUDialect, math::MathDialect,
                    memref::MemRefDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  for (int64_t size : {options.reduceWorkgroupSize, options.headWorkgroupSize,
                       options.attentionWorkgroupSize})
    if (size < 1 || (size & (size - 1)) != 0)
      return module.emitError("workgroup sizes of reducing kernels must be a "
                              "power of two, got ")
             << size;

  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(builder, module.getLoc(), "kiln_kernels");

  llvm::StringSet<> used;
  llvm::DenseMap<Value, Value> hostViews, hostRows;
  int64_t counter = 0;
  for (stage::DispatchOp dispatch : dispatches) {
    std::string name = dispatch.getKernelName()
                           ? dispatch.getKernelName()->str()
                           : "dispatch_" + std::to_string(counter);
    ++counter;
    std::string unique = name;
    for (int suffix = 1; !used.insert(unique).second; ++suffix)
      unique = name + "_" + std::to_string(suffix);
    if (failed(lowerDispatch(dispatch, unique, gpuModule, options, hostViews, hostRows)))
      return failure();
  }
  if (options.mergeIdenticalKernels)
    mergeIdenticalKernels(module, gpuModule);
  return success();
}

namespace {
struct ConvertStageToGPUPass
    : impl::ConvertStageToGPUBase<ConvertStageToGPUPass> {
  using Base::Base;
  /// The pipeline's form: the struct as it is, per-format switches included.
  explicit ConvertStageToGPUPass(const StageToGPUOptions &kernels) : kernels(kernels) {}

  /// The struct from the pass's own options (kiln-opt, lit tests).
  StageToGPUOptions fromPassOptions() const {
    StageToGPUOptions options;
    options.rowWorkgroupSize = rowWorkgroupSize;
    options.reduceWorkgroupSize = reduceWorkgroupSize;
    options.headWorkgroupSize = headWorkgroupSize;
    options.attentionWorkgroupSize = attentionWorkgroupSize;
    options.attentionValueDims = attentionValueDims;
    options.subgroupReduce = subgroupReduce;
    options.matvecRowsPerItem = matvecRowsPerItem;
    options.matvecGroupsPerThread = matvecGroupsPerThread;
    options.matvecPlainGroupsPerThread = matvecPlainGroupsPerThread;
    options.matvecLoadsInFlight = matvecLoadsInFlight;
    options.matvecSubgroupItems = matvecSubgroupItems;
    options.matvecScalarSums = FormatSwitch::both(matvecScalarSums);
    options.matvecNormAfterDots = FormatSwitch::both(matvecNormAfterDots);
    options.matvecGridLimit = matvecGridLimit;
    options.matvecStageInput = matvecStageInput;
    options.prefillMatMatMinBlocks = prefillMatMatMinBlocks;
    options.prefillMatMatTile = prefillMatMatTile;
    options.prefillMatMatCooperative = prefillMatMatCooperative;
    options.prefillMatMatCooperativeSplit =
        static_cast<CooperativeSplit>(std::clamp<int64_t>(prefillMatMatCooperativeSplit, 0, 2));
    options.prefillGdnHeld = prefillGdnHeld;
    options.prefillGdnChunkRows = prefillGdnChunkRows;
    options.prefillGdnShuffleSums = prefillGdnShuffleSums;
    options.prefillGdnColumns = prefillGdnColumns;
    options.gdnShuffleSums = gdnShuffleSums;
    options.matvecSlerpAfterDots = matvecSlerpAfterDots;
    options.q8DecodeByExponent = q8DecodeByExponent;
    options.headRowsBySubgroup = headRowsBySubgroup;
    options.vectorActivations = FormatSwitch::both(vectorActivations);
    options.maxWorkgroupMemoryBytes = maxWorkgroupMemoryBytes;
    return options;
  }

  void runOnOperation() override {
    StageToGPUOptions options = kernels ? *kernels : fromPassOptions();
    options.subgroupReduce =
        options.subgroupReduce &&
        targetHasCapability(getOperation(), spirv::Capability::GroupNonUniformArithmetic);
    options.subgroupShuffle =
        targetHasCapability(getOperation(), spirv::Capability::GroupNonUniformShuffle);
    if (failed(convertStagesToGPU(getOperation(), options)))
      signalPassFailure();
  }

  std::optional<StageToGPUOptions> kernels;
};
} // namespace

std::unique_ptr<Pass> createConvertStageToGPU(const StageToGPUOptions &kernels) {
  return std::make_unique<ConvertStageToGPUPass>(kernels);
}

} // namespace kiln
