//===- StageFusion.cpp - Which stages may share one kernel ----------------===//
//
// The fused forms (docs/fusion.md). OneWorkgroup: everything runs in one
// workgroup, so a workgroup barrier between stages orders every dependence.
// Concurrent: independent stages on disjoint workgroup ranges of one grid,
// so nothing needs ordering at all. Pointwise and RowEpilogue: a thread's own
// program order carries every dependence. LastWorkgroup: an atomic counter
// hands the grid's writes to the one workgroup that runs the tail. SplitKeys:
// the same hand-over, one counter word per attention head.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Stage/IR/StageFusion.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "BufferRules.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>

using namespace mlir;

namespace kiln::stage {

GridKind gridKindOf(Operation *stage) {
  if (isa<RMSNormOp, RouterOp, SlerpOp, DoryMixOp, SampleOp>(stage))
    return GridKind::SingleWorkgroup;
  if (isa<SiluMulOp, AddOp, MulOp, SigmoidGateOp, ConvRingOp, EmbedGatherOp,
          RopeKvWriteOp>(stage))
    return GridKind::PerThread;
  if (isa<MatVecOp, ClusterLogitsOp>(stage))
    return GridKind::RowItems;
  if (isa<HeadRowsOp, DoryPrepOp>(stage))
    return GridKind::PerWorkgroup;
  // gdn_step (reduce-workgroup-size) and the attention stages
  // (attention-workgroup-size) run grids of their own shape, unlike the
  // head-workgroup-size stages: each keeps a kernel of its own.
  return GridKind::Opaque;
}

std::optional<FusionForm> parseFusionForm(StringRef text) {
  if (text == "one_workgroup")
    return FusionForm::OneWorkgroup;
  if (text == "concurrent")
    return FusionForm::Concurrent;
  if (text == "pointwise")
    return FusionForm::Pointwise;
  if (text == "row_epilogue")
    return FusionForm::RowEpilogue;
  if (text == "last_workgroup")
    return FusionForm::LastWorkgroup;
  if (text == "split_keys")
    return FusionForm::SplitKeys;
  return std::nullopt;
}

StringRef fusionFormName(FusionForm form) {
  switch (form) {
  case FusionForm::OneWorkgroup:
    return "one_workgroup";
  case FusionForm::Concurrent:
    return "concurrent";
  case FusionForm::Pointwise:
    return "pointwise";
  case FusionForm::RowEpilogue:
    return "row_epilogue";
  case FusionForm::LastWorkgroup:
    return "last_workgroup";
  case FusionForm::SplitKeys:
    return "split_keys";
  }
  return "";
}

SmallVector<Value> writtenBuffers(Operation *stage) {
  SmallVector<Value> written;
  auto add = [&](Value v) {
    if (v)
      written.push_back(v);
  };
  llvm::TypeSwitch<Operation *>(stage)
      .Case<EmbedGatherOp, AttentionOp, WindowAttentionOp, ClusterLogitsOp, HeadRowsOp,
            SiluMulOp, AddOp, MulOp, SigmoidGateOp, SampleOp>(
          [&](auto op) { add(op.getOut()); })
      .Case([&](MatVecOp op) {
        add(op.getOut());
        add(op.getHiddenOut());
      })
      .Case([&](RMSNormOp op) {
        // The residual is written back only when partial planes are added.
        if (op.getPartials())
          add(op.getResidual());
        for (Value out : op.getOuts())
          add(out);
      })
      .Case([&](ConvRingOp op) {
        add(op.getRing());
        add(op.getOut());
      })
      .Case([&](GdnStepOp op) {
        add(op.getState());
        add(op.getOut());
        add(op.getCounters());
      })
      .Case([&](RopeKvWriteOp op) {
        add(op.getQOut());
        add(op.getKRing());
        add(op.getVRing());
      })
      .Case([&](DoryPrepOp op) {
        add(op.getQOut());
        add(op.getKRing());
        add(op.getVRing());
        add(op.getLandmarks());
      })
      .Case([&](RouterOp op) { add(op.getSelected()); })
      .Case([&](KeyScoresOp op) { add(op.getScores()); })
      .Case([&](SlerpOp op) { add(op.getHidden()); })
      .Case([&](PrefetchOp op) { add(op.getSink()); })
      .Case([&](LastWorkgroupOp op) { add(op.getCounter()); })
      .Case([&](KeyBlocksOp op) {
        add(op.getPartials());
        add(op.getCounters());
      })
      .Case([&](DoryMixOp op) {
        // Modes write different subsets; all three is the safe answer.
        add(op.getHidden());
        add(op.getState());
        add(op.getEntry());
      })
      .Default([&](Operation *other) {
        // A stage this file does not know: it may write any operand.
        for (Value v : other->getOperands())
          add(v);
      });
  return written;
}

namespace {

struct Placement {
  int64_t slot, begin, end; // end < 0: to the end of the slot
};

std::optional<Placement> placementOf(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return std::nullopt;
  auto func = dyn_cast_or_null<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!func || arg.getOwner() != &func.getFunctionBody().front())
    return std::nullopt;
  BufferAttr buffer = bufferAttrOf(func, arg.getArgNumber());
  if (!buffer || !buffer.getSlot())
    return std::nullopt;
  int64_t begin = buffer.getByteOffset();
  return Placement{*buffer.getSlot(), begin, begin + buffer.getByteSize()};
}

std::string describe(Operation *stage, size_t index) {
  return "stage #" + std::to_string(index) + " ('" +
         stage->getName().getStringRef().str() + "')";
}

} // namespace

bool buffersMayAlias(Value a, Value b) {
  if (a == b)
    return true;
  std::optional<Placement> pa = placementOf(a), pb = placementOf(b);
  if (!pa || !pb || pa->slot != pb->slot)
    return false;
  bool aBeforeB = pa->end >= 0 && pa->end <= pb->begin;
  bool bBeforeA = pb->end >= 0 && pb->end <= pa->begin;
  return !aBeforeB && !bBeforeA;
}

bool stagesConflict(Operation *a, Operation *b) {
  auto writesTouched = [](Operation *writer, Operation *other) {
    for (Value written : writtenBuffers(writer))
      for (Value touched : other->getOperands())
        if (buffersMayAlias(written, touched))
          return true;
    return false;
  };
  return writesTouched(a, b) || writesTouched(b, a);
}

namespace {
/// Stages whose element i depends only on element i of their operands.
bool isElementwise(Operation *stage) {
  return isa<AddOp, MulOp, SiluMulOp, SigmoidGateOp>(stage);
}

/// Stages a row epilogue can hold: channel i touches only channel i.
bool isPerRow(Operation *stage) { return isElementwise(stage) || isa<ConvRingOp>(stage); }

bool canFuseRowEpilogue(ArrayRef<Operation *> stages, std::string &whyNot) {
  size_t count = 0;
  while (count < stages.size() && isa<MatVecOp>(stages[count]))
    ++count;
  if (count == 0 || count == stages.size()) {
    whyNot = "a row epilogue is mat-vecs followed by per-row stages";
    return false;
  }
  auto first = cast<MatVecOp>(stages.front());
  int64_t rows = first.getRows();
  int64_t groups = cast<MemRefType>(first.getWeight().getType()).getDimSize(1);
  SmallVector<Value> outs;
  for (size_t i = 0; i < count; ++i) {
    auto mv = cast<MatVecOp>(stages[i]);
    if (mv.getSplitK() != 1 || mv.getAccumulate()) {
      whyNot = describe(stages[i], i) + " is split-K or accumulates: a row is not one value";
      return false;
    }
    if (mv.getRows() != rows ||
        cast<MemRefType>(mv.getWeight().getType()).getDimSize(1) != groups) {
      whyNot = describe(stages[i], i) + " has another shape than stage #0: one workgroup per row "
               "serves mat-vecs of one shape";
      return false;
    }
    for (size_t j = 0; j < i; ++j)
      if (stagesConflict(stages[j], stages[i])) {
        whyNot = describe(stages[i], i) + " depends on " + describe(stages[j], j);
        return false;
      }
    outs.push_back(mv.getOut());
  }
  auto vectorLength = [](Value v) {
    auto type = cast<MemRefType>(v.getType());
    return type.getRank() == 1 ? type.getDimSize(0) : int64_t(-1);
  };
  for (size_t i = count; i < stages.size(); ++i) {
    Operation *stage = stages[i];
    bool perRow = false;
    if (auto conv = dyn_cast<ConvRingOp>(stage))
      perRow = vectorLength(conv.getInput()) == rows && vectorLength(conv.getOut()) == rows;
    else if (isElementwise(stage))
      perRow = llvm::all_of(stage->getOperands(),
                            [&](Value v) { return vectorLength(v) == rows; });
    if (!perRow) {
      whyNot = describe(stage, i) + " is not a per-row stage over the mat-vecs' " +
               std::to_string(rows) + " rows";
      return false;
    }
    for (size_t j = 0; j < stages.size(); ++j) {
      if (j == i)
        continue;
      for (Value written : writtenBuffers(stage))
        for (Value touched : stages[j]->getOperands()) {
          if (!buffersMayAlias(written, touched))
            continue;
          // Element r of the same vector is safe within the row's thread;
          // anything a mat-vec reads beyond its own output is not.
          bool sameVector = written == touched;
          bool matvecOperand = j < count && !llvm::is_contained(outs, touched);
          if (!sameVector || matvecOperand) {
            whyNot = describe(stage, i) + " writes a buffer " + describe(stages[j], j) +
                     " reads across rows";
            return false;
          }
        }
    }
  }
  return true;
}
} // namespace

SmallVector<SmallVector<size_t>> concurrentMembers(ArrayRef<Operation *> stages) {
  SmallVector<SmallVector<size_t>> members;
  for (size_t i = 0; i < stages.size(); ++i) {
    Operation *stage = stages[i];
    if (isPerRow(stage)) {
      SmallVector<size_t> touched;
      for (size_t m = 0; m < members.size(); ++m)
        if (llvm::any_of(members[m],
                         [&](size_t j) { return stagesConflict(stages[j], stage); }))
          touched.push_back(m);
      if (touched.size() == 1) {
        SmallVector<size_t> &member = members[touched.front()];
        auto matvec = dyn_cast<MatVecOp>(stages[member.front()]);
        SmallVector<Operation *> candidate;
        for (size_t j : member)
          candidate.push_back(stages[j]);
        candidate.push_back(stage);
        std::string ignored;
        bool onlyMatvecFirst = llvm::none_of(ArrayRef<size_t>(member).drop_front(),
                                             [&](size_t j) { return isa<MatVecOp>(stages[j]); });
        if (matvec && onlyMatvecFirst && canFuseRowEpilogue(candidate, ignored)) {
          member.push_back(i);
          continue;
        }
      }
    }
    members.push_back({i});
  }
  return members;
}

bool canRunLastWorkgroupTail(Operation *lead, ArrayRef<Operation *> tail,
                             std::string &whyNot) {
  GridKind leadKind = gridKindOf(lead);
  if (leadKind != GridKind::RowItems && leadKind != GridKind::PerThread &&
      leadKind != GridKind::PerWorkgroup) {
    whyNot = describe(lead, 0) + " is no grid a last workgroup can follow (a mat-vec, a "
             "per-thread or a per-head stage)";
    return false;
  }
  if (tail.empty()) {
    whyNot = "a last-workgroup tail needs a stage after the stage.last_workgroup";
    return false;
  }
  for (auto [index, stage] : llvm::enumerate(tail)) {
    GridKind kind = gridKindOf(stage);
    if (kind == GridKind::Opaque || kind == GridKind::PerWorkgroup) {
      whyNot = describe(stage, index + 2) + " cannot run inside one workgroup";
      return false;
    }
  }
  return true;
}

namespace {

using detail::ceilDiv;
using detail::dim;

/// [key_scores, key_blocks, attention | window_attention]: the walk rules
/// (canSplitKeys), and the blocks' partials and counters fit its heads.
bool canFuseSplitKeys(ArrayRef<Operation *> stages, std::string &whyNot) {
  auto blocks = stages.size() == 3 ? dyn_cast<KeyBlocksOp>(stages[1]) : KeyBlocksOp();
  if (!blocks) {
    whyNot = "a split_keys dispatch is a stage.key_scores, a stage.key_blocks and a "
             "stage.attention or stage.window_attention";
    return false;
  }
  if (!canSplitKeys(stages[0], stages[2], whyNot))
    return false;
  Value partials = blocks.getPartials();
  int64_t blockKeys = static_cast<int64_t>(blocks.getBlockKeys());
  if (blockKeys < 1) {
    whyNot = describe(blocks, 1) + " has no keys a block";
    return false;
  }
  SmallVector<int64_t, 3> shape = splitKeysPartialsShape(stages[0], blockKeys);
  int64_t heads = shape[0];
  if (cast<MemRefType>(partials.getType()).getShape() != ArrayRef<int64_t>(shape)) {
    whyNot = describe(blocks, 1) + " partials must be [" + std::to_string(heads) +
             " heads, " + std::to_string(shape[1]) + " blocks of " + std::to_string(blockKeys) +
             " of the " + std::to_string(dim(cast<KeyScoresOp>(stages[0]).getScores(), 1)) +
             " key slots, " + std::to_string(shape[2]) + " (hd + 3) floats]";
    return false;
  }
  if (dim(blocks.getCounters(), 0) < heads) {
    whyNot = describe(blocks, 1) + " counters must hold a word per head (" +
             std::to_string(heads) + ")";
    return false;
  }
  return true;
}

} // namespace

bool canSplitKeys(Operation *lead, Operation *tail, std::string &whyNot) {
  auto scores = dyn_cast<KeyScoresOp>(lead);
  if (!scores || !isa_and_nonnull<AttentionOp, WindowAttentionOp>(tail)) {
    whyNot = "a split_keys dispatch is a stage.key_scores, a stage.key_blocks and a "
             "stage.attention or stage.window_attention";
    return false;
  }
  auto refuse = [&](const std::string &why) {
    whyNot = describe(tail, 2) + " " + why;
    return false;
  };
  Value read, vRing, sinkV;
  int64_t positionWord = 1;
  std::function<int64_t(int64_t)> windowOf;
  if (auto attention = dyn_cast<AttentionOp>(tail)) {
    read = attention.getScores();
    vRing = attention.getVRing();
    sinkV = attention.getSinkV();
    auto windows = attention.getGroupWindows();
    int64_t cap = dim(vRing, 1);
    windowOf = [windows, cap](int64_t g) { return windows ? (*windows)[g] : cap; };
  } else {
    auto window = cast<WindowAttentionOp>(tail);
    read = window.getScores();
    vRing = window.getVRing();
    sinkV = window.getSinkV();
    positionWord = static_cast<int64_t>(window.getPositionWord());
    int64_t w = static_cast<int64_t>(window.getWindow());
    windowOf = [w](int64_t) { return w; };
  }
  if (read != scores.getScores())
    return refuse("reads other scores than stage #0 writes");
  Value kRing = scores.getKRing();
  for (unsigned i = 0; i < 3; ++i)
    if (dim(vRing, i) != dim(kRing, i))
      return refuse("has a value ring shaped unlike stage #0's key ring");
  if ((sinkV ? dim(sinkV, 1) : 0) != scores.getNumSinks())
    return refuse("has other sinks than stage #0 scores");
  if (positionWord != static_cast<int64_t>(scores.getPositionWord()))
    return refuse("reads the position from another params word than stage #0");
  for (int64_t g = 0, kvh = dim(kRing, 0); g < kvh; ++g)
    if (windowOf(g) != scores.getWindowOf(g))
      return refuse("sees another window of KV head " + std::to_string(g) +
                    " than stage #0 scores");
  return true;
}

bool exceedsOwnKernelKeys(Operation *attention) {
  if (auto op = dyn_cast<AttentionOp>(attention))
    return op.getMaxKeys() > AttentionOp::kMaxKeys;
  auto op = cast<WindowAttentionOp>(attention);
  return op.getNumSinks() + static_cast<int64_t>(op.getWindow()) > WindowAttentionOp::kMaxWindow;
}

SmallVector<int64_t, 3> splitKeysPartialsShape(Operation *scores, int64_t blockKeys) {
  auto op = cast<KeyScoresOp>(scores);
  return {dim(op.getScores(), 0), ceilDiv(dim(op.getScores(), 1), blockKeys),
          dim(op.getKRing(), 2) + KeyBlocksOp::kHeaderFloats};
}

bool canFuse(FusionForm form, ArrayRef<Operation *> stages, std::string &whyNot) {
  if (form == FusionForm::LastWorkgroup) {
    // [lead, stage.last_workgroup, tail...]: the marker splits the two.
    if (stages.size() < 3 || !isa<LastWorkgroupOp>(stages[1])) {
      whyNot = "a last_workgroup dispatch is one stage, a stage.last_workgroup and the "
               "stages of its tail";
      return false;
    }
    for (auto [index, stage] : llvm::enumerate(stages))
      if (index != 1 && isa<LastWorkgroupOp>(stage)) {
        whyNot = describe(stage, index) + " is a second stage.last_workgroup: one a dispatch";
        return false;
      }
    return canRunLastWorkgroupTail(stages[0], stages.drop_front(2), whyNot);
  }
  if (form == FusionForm::SplitKeys)
    return canFuseSplitKeys(stages, whyNot);
  for (auto [index, stage] : llvm::enumerate(stages)) {
    if (isa<LastWorkgroupOp>(stage)) {
      whyNot = describe(stage, index) + " belongs in a last_workgroup dispatch";
      return false;
    }
    if (isa<KeyBlocksOp>(stage)) {
      whyNot = describe(stage, index) + " belongs in a split_keys dispatch";
      return false;
    }
    GridKind kind = gridKindOf(stage);
    if (kind == GridKind::Opaque) {
      whyNot = describe(stage, index) + " has no fused form";
      return false;
    }
    if (form == FusionForm::OneWorkgroup && kind == GridKind::PerWorkgroup) {
      whyNot = describe(stage, index) +
               " needs a workgroup per head: it cannot run inside one workgroup";
      return false;
    }
  }
  if (form == FusionForm::Pointwise) {
    std::optional<int64_t> length;
    for (auto [index, stage] : llvm::enumerate(stages)) {
      if (!isElementwise(stage)) {
        whyNot = describe(stage, index) + " is not elementwise";
        return false;
      }
      for (Value v : stage->getOperands()) {
        int64_t n = cast<MemRefType>(v.getType()).getNumElements();
        if (length && *length != n) {
          whyNot = describe(stage, index) + " has a buffer of " + std::to_string(n) +
                   " values, the chain " + std::to_string(*length) +
                   ": pointwise stages share one index space";
          return false;
        }
        length = n;
      }
    }
    // Thread i touches element i only: a buffer written by one stage and
    // touched by another must be that very buffer, not an overlapping one.
    for (size_t i = 0; i < stages.size(); ++i)
      for (size_t j = 0; j < stages.size(); ++j) {
        if (i == j)
          continue;
        for (Value written : writtenBuffers(stages[i]))
          for (Value touched : stages[j]->getOperands())
            if (written != touched && buffersMayAlias(written, touched)) {
              whyNot = describe(stages[j], j) + " touches a buffer overlapping one " +
                       describe(stages[i], i) + " writes at another offset";
              return false;
            }
      }
  }
  if (form == FusionForm::RowEpilogue && !canFuseRowEpilogue(stages, whyNot))
    return false;
  if (form == FusionForm::Concurrent) {
    // Members are independent; inside one, a row epilogue follows its mat-vec.
    SmallVector<SmallVector<size_t>> members = concurrentMembers(stages);
    SmallVector<size_t> memberOf(stages.size());
    for (auto [m, member] : llvm::enumerate(members))
      for (size_t i : member)
        memberOf[i] = m;
    for (size_t i = 0; i < stages.size(); ++i)
      for (size_t j = i + 1; j < stages.size(); ++j)
        if (memberOf[i] != memberOf[j] && stagesConflict(stages[i], stages[j])) {
          whyNot = describe(stages[j], j) + " touches a buffer " +
                   describe(stages[i], i) +
                   " writes (or the other way round): concurrent stages "
                   "must be independent";
          return false;
        }
  }
  return true;
}

} // namespace kiln::stage
