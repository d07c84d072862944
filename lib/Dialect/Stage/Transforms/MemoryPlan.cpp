//===- MemoryPlan.cpp - Scratch buffers to physical slots by liveness -----===//
//
// docs/memory.md. A scratch buffer is live from the first dispatch that
// touches it to the last. Buffers are visited by start; each takes a free
// slot (one whose last user ran strictly before this buffer's first), the
// smallest one that fits, else the largest free one (grown), else a new
// slot: greedy interval colouring. Every slot is its own device buffer and a
// logical buffer sits at offset 0 of its slot, so a plan writer that tracks
// hazards per slot also sees the write-after-read between two buffers that
// share one.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Stage/Transforms/MemoryPlan.h"
#include "kiln/Dialect/Stage/Transforms/Passes.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include <algorithm>

using namespace mlir;

namespace kiln::stage {

#define GEN_PASS_DEF_KILNPLANMEMORY
#include "kiln/Dialect/Stage/Transforms/Passes.h.inc"

namespace {
struct LiveRange {
  unsigned arg;
  int64_t first = -1, last = -1;
  int64_t bytes = 0;
};
struct Slot {
  int64_t id;
  int64_t freeAfter; // last dispatch index that uses it
  int64_t bytes;
};
} // namespace

/// Slots are sized in whole 256-byte units (the largest
/// minStorageBufferOffsetAlignment in practice).
static int64_t roundUp(int64_t bytes) { return (bytes + 255) / 256 * 256; }

namespace {
/// What the module's other planned programs hold: the slot of each non-scratch
/// buffer by name, and the first slot none of them uses.
struct OtherPrograms {
  llvm::StringMap<int64_t> slotOfName;
  int64_t firstFree = 0;
};
} // namespace

/// @decode and @prefill share the weights, state, params and readback: one
/// slot each, whichever program is planned (or re-planned after fusion) first.
/// Scratch slots are a program's own, numbered after every other program's.
static OtherPrograms otherPrograms(func::FuncOp func) {
  OtherPrograms others;
  auto module = func->getParentOfType<ModuleOp>();
  if (!module)
    return others;
  for (auto other : module.getOps<func::FuncOp>()) {
    if (other == func || !other->hasAttr(kSlotsAttrName))
      continue;
    for (unsigned i = 0; i < other.getNumArguments(); ++i) {
      BufferAttr buffer = bufferAttrOf(other, i);
      if (!buffer || !buffer.getSlot())
        continue;
      others.firstFree = std::max(others.firstFree, *buffer.getSlot() + 1);
      if (buffer.getKind() != BufferKind::Scratch)
        others.slotOfName.try_emplace(buffer.getName(), *buffer.getSlot());
    }
  }
  return others;
}

int64_t planMemory(func::FuncOp func) {
  Block &entry = func.getBody().front();
  Builder b(func.getContext());
  unsigned count = entry.getNumArguments();
  std::vector<LiveRange> ranges(count);
  for (unsigned i = 0; i < count; ++i) {
    ranges[i].arg = i;
    BufferAttr buffer = bufferAttrOf(func, i);
    ranges[i].bytes = bufferBytes(cast<MemRefType>(entry.getArgument(i).getType())) *
                      (buffer ? buffer.getRows() : 1);
  }
  int64_t index = 0;
  for (auto dispatch : func.getOps<DispatchOp>()) {
    dispatch.walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (auto arg = dyn_cast<BlockArgument>(operand))
          if (arg.getOwner() == &entry) {
            LiveRange &r = ranges[arg.getArgNumber()];
            if (r.first < 0)
              r.first = index;
            r.last = index;
          }
    });
    ++index;
  }

  const BufferKind scratchKind = BufferKind::Scratch;
  // An argument without a placement (a hand-written module) is scratch.
  auto kindOf = [&](unsigned i) {
    BufferAttr buffer = bufferAttrOf(func, i);
    return buffer ? buffer.getKind() : scratchKind;
  };

  OtherPrograms others = otherPrograms(func);
  std::vector<int64_t> slotOf(count, -1);
  // Slot ids [0, firstFree) belong to other programs: this program's table
  // lists only its own slots.
  std::vector<int64_t> slotBytes(others.firstFree, 0);
  std::vector<BufferKind> slotKind(others.firstFree, scratchKind);
  std::vector<bool> ownSlot(others.firstFree, false);
  // Weights, state, params and readback: one slot each, in argument order
  // (the slot another program gave the same name, where it did).
  for (unsigned i = 0; i < count; ++i)
    if (kindOf(i) != scratchKind) {
      int64_t id = static_cast<int64_t>(slotBytes.size());
      BufferAttr buffer = bufferAttrOf(func, i);
      if (auto it = buffer ? others.slotOfName.find(buffer.getName())
                           : others.slotOfName.end();
          it != others.slotOfName.end())
        id = it->second;
      else {
        slotBytes.push_back(0);
        slotKind.push_back(kindOf(i));
        ownSlot.push_back(true);
      }
      slotOf[i] = id;
      slotBytes[id] = std::max(slotBytes[id], roundUp(ranges[i].bytes));
      slotKind[id] = kindOf(i);
      ownSlot[id] = true;
    }
  std::vector<LiveRange> scratch;
  for (unsigned i = 0; i < count; ++i)
    if (kindOf(i) == scratchKind)
      scratch.push_back(ranges[i]);
  std::stable_sort(scratch.begin(), scratch.end(),
                   [](const LiveRange &a, const LiveRange &b) {
                     return a.first < b.first;
                   });
  std::vector<Slot> slots;
  for (const LiveRange &r : scratch) {
    Slot *best = nullptr;
    for (Slot &s : slots) {
      if (r.first < 0 || s.freeAfter >= r.first)
        continue;
      bool fits = s.bytes >= r.bytes;
      if (!best) {
        best = &s;
        continue;
      }
      bool bestFits = best->bytes >= r.bytes;
      if (fits && (!bestFits || s.bytes < best->bytes))
        best = &s;
      else if (!fits && !bestFits && s.bytes > best->bytes)
        best = &s;
    }
    if (!best) {
      slots.push_back({static_cast<int64_t>(slotBytes.size()), -1, 0});
      slotBytes.push_back(0);
      slotKind.push_back(scratchKind);
      ownSlot.push_back(true);
      best = &slots.back();
    }
    best->freeAfter = r.last < 0 ? best->freeAfter : r.last;
    best->bytes = std::max(best->bytes, roundUp(r.bytes));
    slotBytes[best->id] = best->bytes;
    slotOf[r.arg] = best->id;
  }

  MLIRContext *ctx = func.getContext();
  for (unsigned i = 0; i < count; ++i) {
    // An argument without a placement (a hand-written module) gets one, as
    // the scratch buffer it is taken for.
    BufferAttr buffer = bufferAttrOf(func, i);
    if (!buffer)
      buffer = BufferAttr::get(ctx, scratchKind, "arg" + std::to_string(i), std::nullopt,
                               /*byte_offset=*/0, ranges[i].bytes, {}, /*rows=*/1);
    func.setArgAttr(i, kBufferAttrName, buffer.withPlacement(slotOf[i], /*byteOffset=*/0));
  }
  SmallVector<Attribute> table;
  int64_t own = 0;
  for (size_t s = 0; s < slotBytes.size(); ++s)
    if (ownSlot[s]) {
      table.push_back(SlotAttr::get(ctx, static_cast<int64_t>(s), slotKind[s], slotBytes[s]));
      ++own;
    }
  func->setAttr(kSlotsAttrName, b.getArrayAttr(table));
  return own;
}

namespace {
struct KilnPlanMemoryPass : impl::KilnPlanMemoryBase<KilnPlanMemoryPass> {
  void runOnOperation() override {
    // Every program of stage dispatches (@decode, @prefill).
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && !func.getOps<DispatchOp>().empty())
        planMemory(func);
  }
};
} // namespace

} // namespace kiln::stage
