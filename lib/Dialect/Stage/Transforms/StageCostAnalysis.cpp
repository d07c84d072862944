//===- StageCostAnalysis.cpp - Stage ops as cost-model records ------------===//
//
// One switch over the stage kinds. Bytes come from the operand types, so a
// record always matches the buffers the kernel binds; flops are the op's
// arithmetic, counted the way its kernel does it (matvec recomputes silu per
// row when it carries the activation). Workgroups mirror the launch shapes
// of convert-stage-to-gpu (docs/stages.md, "Kernel shapes").
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Stage/Transforms/StageCostAnalysis.h"

#include "kiln/Dialect/Stage/IR/StageFusion.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;

namespace kiln::stage {
namespace {

/// A workgroup tree reduction of 256 threads: log2(256) steps + 2.
constexpr uint64_t kBarriersPerReduction = 10;
/// The attention kernels' launch shapes (docs/stages.md, "Kernel shapes"):
/// stage.key_scores takes about this many keys a workgroup, the attention
/// stages this many head dims a workgroup.
constexpr int64_t kKeysPerScoreWorkgroup = 64;
constexpr int64_t kDimsPerValueWorkgroup = 16;

int64_t elements(Value v) { return cast<MemRefType>(v.getType()).getNumElements(); }
int64_t dimOf(Value v, unsigned d) { return cast<MemRefType>(v.getType()).getDimSize(d); }
uint64_t ceilDiv(int64_t a, int64_t b) { return uint64_t((a + b - 1) / b); }

uint64_t bytesOf(Value v) {
  auto type = cast<MemRefType>(v.getType());
  Type element = type.getElementType();
  int64_t bytes = 4;
  if (auto vector = dyn_cast<VectorType>(element))
    bytes = vector.getNumElements() * vector.getElementType().getIntOrFloatBitWidth() / 8;
  else if (element.isIntOrFloat())
    bytes = element.getIntOrFloatBitWidth() / 8;
  return uint64_t(type.getNumElements() * bytes);
}

/// Written buffers the stage also reads: in-place updates.
bool readsWhatItWrites(Operation *stage, Value written) {
  return llvm::TypeSwitch<Operation *, bool>(stage)
      .Case([&](RMSNormOp op) { return written == op.getResidual(); })
      .Case([&](MatVecOp op) { return op.getAccumulate(); })
      .Case([&](ConvRingOp op) { return written == op.getRing(); })
      .Case([&](GdnStepOp op) {
        return written == op.getState() || written == op.getCounters();
      })
      .Case<SlerpOp, DoryMixOp>([](auto) { return true; })
      .Default([](Operation *) { return false; });
}

} // namespace

cost::StageCost stageCostOf(Operation *stage, const StageCostOptions &options) {
  cost::StageCost c;
  SmallVector<Value> written = writtenBuffers(stage);
  for (Value v : written)
    c.bytesWritten += bytesOf(v);
  for (Value v : stage->getOperands()) {
    if (!isa<MemRefType>(v.getType()))
      continue;
    bool isOutput = llvm::is_contained(written, v);
    if (!isOutput || readsWhatItWrites(stage, v))
      c.bytesRead += bytesOf(v);
  }
  const int64_t row = options.rowWorkgroupSize;
  // The ring rows attention reads at options.position (all of them when it
  // is negative); the rings' bytes are priced for those rows only.
  auto ringKeys = [&](std::initializer_list<Value> rings) {
    int64_t rows = dimOf(*rings.begin(), 1);
    if (options.position < 0 || rows <= 0)
      return rows;
    int64_t keys = std::min<int64_t>(options.position + 1, rows);
    for (Value ring : rings) {
      uint64_t whole = bytesOf(ring);
      c.bytesRead -= whole - whole / uint64_t(rows) * uint64_t(keys);
    }
    return keys;
  };
  // A stage that writes one ring row per KV head (the step's key and value)
  // writes that row, not the ring.
  auto writesOneRow = [&](std::initializer_list<Value> rings) {
    for (Value ring : rings) {
      uint64_t whole = bytesOf(ring);
      c.bytesWritten -= whole - whole / uint64_t(std::max<int64_t>(1, dimOf(ring, 1)));
    }
  };
  llvm::TypeSwitch<Operation *>(stage)
      .Case([&](MatVecOp op) {
        int64_t work = op.getRows() * op.getColumns();
        bool activated = op.getActivation() == Activation::silu_mul;
        c.flops = uint64_t(work * (activated ? 7 : 2));
        // A workgroup per (row, chunk), the grid capped at 65535.
        c.workgroups = uint64_t(std::min<int64_t>(op.getRows() * op.getSplitK(), 65535));
        c.isMatvec = true;
        c.quantized = op.getFormat() == MatrixFormat::q8_2f;
        // One reduction per (row, chunk); the kernel's width follows the chunk.
        int64_t groups = ceilDiv(dimOf(op.getWeight(), 1), op.getSplitK());
        int64_t width = 32;
        while (width < groups && width < 256)
          width *= 2;
        c.barriers = uint64_t(op.getRows() * op.getSplitK()) * kBarriersPerReduction;
        c.ownWidth = double(width) / 256.0;
        // A routed expert reads one of its E stacked candidates.
        // The activation is recomputed per row: every (row, chunk) reads its
        // columns of the input, up and column field again, from the cache.
        if (activated) {
          uint64_t perColumn = 8 + (op.getColScale() ? 4 : 0);
          c.cacheBytes = uint64_t(op.getRows()) * uint64_t(op.getColumns()) * perColumn;
        }
        // A norm: each workgroup reduces the input's mean square once more.
        // Its extra reads (the input again, the norm weight) are small
        // vectors every workgroup of an SM shares in L1, like the plain
        // input, which is not priced either.
        if (op.getNorm()) {
          c.flops += uint64_t(work);
          c.barriers += uint64_t(op.getRows() * op.getSplitK()) * kBarriersPerReduction;
        }
        // A slerp likewise, over three vectors (h, o, alpha: five sums), and
        // its input formed from two of them per column.
        if (op.getSlerpUpdate()) {
          c.flops += uint64_t(3 * work);
          c.barriers += uint64_t(op.getRows() * op.getSplitK()) * kBarriersPerReduction;
        }
        int64_t experts = op.getNumExperts();
        for (Value v : {op.getWeight(), op.getRowScale(), op.getColScale()})
          if (v && experts > 1)
            c.bytesRead -= bytesOf(v) / experts * (experts - 1);
      })
      .Case([&](EmbedGatherOp op) {
        // One row of the table, not the table.
        c.bytesRead = uint64_t(dimOf(op.getTable(), 1)) * 16 + bytesOf(op.getParams());
        c.flops = uint64_t(elements(op.getOut()));
        c.workgroups = ceilDiv(dimOf(op.getTable(), 1), row);
      })
      .Case<SiluMulOp, SigmoidGateOp>([&](auto op) {
        c.flops = uint64_t(6 * elements(op.getOut()));
        c.workgroups = ceilDiv(elements(op.getOut()), row);
      })
      .Case<AddOp, MulOp>([&](auto op) {
        c.flops = uint64_t(elements(op.getOut()));
        c.workgroups = ceilDiv(elements(op.getOut()), row);
      })
      .Case([&](ConvRingOp op) {
        c.flops = uint64_t(elements(op.getTaps()) * 2 + 5 * elements(op.getOut()));
        c.workgroups = ceilDiv(elements(op.getInput()), row);
      })
      .Case([&](RopeKvWriteOp op) {
        writesOneRow({op.getKRing(), op.getVRing()});
        int64_t threads = elements(op.getQ()) + 2 * elements(op.getK());
        c.flops = uint64_t(6 * threads);
        c.workgroups = ceilDiv(threads, row);
      })
      .Case([&](RMSNormOp op) {
        int64_t h = elements(op.getResidual());
        int64_t planes = op.getPartials() ? dimOf(op.getPartials(), 0) : 0;
        c.flops = uint64_t(h * (3 + planes + 2 * int64_t(op.getOuts().size())));
      })
      .Case([&](RouterOp op) {
        int64_t experts = dimOf(op.getCentres(), 0), h = dimOf(op.getCentres(), 1);
        int64_t rank = op.getBasis() ? dimOf(op.getBasis(), 1) : 0;
        c.flops = uint64_t(experts * (rank + 1) * h * 3);
      })
      .Case([&](ClusterLogitsOp op) {
        c.flops = uint64_t(2 * elements(op.getClusters()));
        c.workgroups = uint64_t(dimOf(op.getClusters(), 0));
        c.isMatvec = true;
      })
      .Case<SlerpOp>([&](SlerpOp op) { c.flops = uint64_t(10 * elements(op.getHidden())); })
      .Case([&](SampleOp op) { c.flops = uint64_t(4 * elements(op.getValues())); })
      .Case<DoryMixOp>([&](DoryMixOp op) { c.flops = uint64_t(6 * elements(op.getHidden())); })
      .Case([&](GdnStepOp op) {
        c.flops = uint64_t(6 * elements(op.getState()));
        c.workgroups = uint64_t(dimOf(op.getState(), 0));
      })
      .Case([&](KeyScoresOp op) {
        int64_t hd = dimOf(op.getKRing(), 2), heads = elements(op.getQ()) / hd;
        // Sinks stay; the ring holds only the keys read at the position.
        int64_t keys = op.getNumSinks() + ringKeys({op.getKRing()});
        c.flops = uint64_t(2 * heads * keys * hd);
        c.workgroups = uint64_t(heads) * ceilDiv(keys, kKeysPerScoreWorkgroup);
      })
      .Case<AttentionOp, WindowAttentionOp>([&](auto op) {
        // The scores' weights and the value sums over the keys read.
        int64_t hd = dimOf(op.getVRing(), 2), heads = elements(op.getOut()) / hd;
        int64_t sinks = op.getSinkV() ? dimOf(op.getSinkV(), 1) : 0;
        int64_t keys = sinks + ringKeys({op.getVRing()});
        c.flops = uint64_t(2 * heads * keys * hd + 4 * heads * keys);
        c.workgroups = uint64_t(heads) * ceilDiv(hd, kDimsPerValueWorkgroup);
      })
      .Case([&](FarFieldPushOp op) {
        // The key and value leaving the window (one ring row per KV head),
        // folded into the landmark sums: not the whole rings.
        int64_t kvh = dimOf(op.getKRing(), 0), hd = dimOf(op.getKRing(), 2);
        c.bytesRead = uint64_t(2 * kvh * hd * 4) + bytesOf(op.getLandmarks()) +
                      2 * bytesOf(op.getFarSums()) + bytesOf(op.getParams());
        c.flops = uint64_t(4 * elements(op.getFarSums()));
        c.workgroups = uint64_t(kvh);
        // Before the window fills no key leaves it: the kernel reads its
        // meta words and stops.
        if (options.position >= 0 && options.position < int64_t(op.getWindow())) {
          c.bytesRead = bytesOf(op.getParams()) + bytesOf(op.getFarMeta());
          c.bytesWritten = 0;
          c.flops = 0;
        }
      })
      .Case([&](LandmarkSealOp op) {
        c.flops = uint64_t(4 * elements(op.getLandmarks()) * dimOf(op.getLandmarks(), 1));
        c.workgroups = uint64_t(dimOf(op.getLandmarks(), 0));
      })
      .Case([&](HeadRowsOp op) {
        c.flops = uint64_t(2 * elements(op.getOut()) * elements(op.getInput()));
        c.workgroups = uint64_t(elements(op.getClusterLogits()));
        c.isMatvec = true;
        c.quantized = op.getFormat() == MatrixFormat::q8_2f;
      })
      .Case([&](DoryPrepOp op) {
        writesOneRow({op.getKRing(), op.getVRing()});
        // A capture writes at most one landmark row a KV head (and only in
        // a session's first call).
        if (Value landmarks = op.getLandmarks()) {
          uint64_t whole = bytesOf(landmarks);
          uint64_t row = whole / uint64_t(std::max<int64_t>(1, dimOf(landmarks, 1)));
          c.bytesWritten -= whole - row;
        }
        int64_t hd = dimOf(op.getKRing(), 2);
        c.flops = uint64_t(8 * (elements(op.getQ()) + elements(op.getK())));
        c.workgroups = uint64_t((elements(op.getQ()) + elements(op.getK())) / hd);
      })
      .Case([&](PrefetchOp op) {
        // Only its groups of the source are read (into the cache).
        c.bytesRead = uint64_t(op.getGroups()) * 16 + bytesOf(op.getSink());
        c.flops = uint64_t(op.getGroups()) * 4;
        c.workgroups = uint64_t(std::max<int64_t>(1, op.getGroups() / (row * 8)));
      })
      .Case([&](KeyBlocksOp op) {
        // Each workgroup writes its block's partials and counts; the last of
        // a head reads the head's blocks.
        c.bytesRead = c.bytesWritten = bytesOf(op.getPartials()) + bytesOf(op.getCounters());
        c.flops = 0;
      })
      .Case([&](LastWorkgroupOp op) {
        // One counter word a workgroup, read and written by an atomic add.
        c.bytesRead = c.bytesWritten = 4;
        c.flops = 0;
      })
      .Default([&](Operation *) {
        // A stage this file does not know yet: its bytes, one workgroup.
        c.flops = c.bytesRead / 4;
      });
  if (c.workgroups == 0)
    c.workgroups = 1;
  // Reducing stages other than the mat-vec: a few reductions per workgroup
  // (single-workgroup stages at 256 threads, per-head stages at 64).
  if (!isa<MatVecOp>(stage)) {
    GridKind kind = gridKindOf(stage);
    if (kind == GridKind::SingleWorkgroup)
      c.barriers = 3 * kBarriersPerReduction;
    else if (kind != GridKind::PerThread) {
      c.barriers = c.workgroups * 3 * kBarriersPerReduction;
      c.ownWidth = 0.25;
    }
  }
  return c;
}

std::vector<cost::StageCost> dispatchCosts(DispatchOp dispatch,
                                           const StageCostOptions &options) {
  std::vector<cost::StageCost> costs;
  for (Operation &op : dispatch.getBody().front())
    costs.push_back(stageCostOf(&op, options));
  return costs;
}

} // namespace kiln::stage
