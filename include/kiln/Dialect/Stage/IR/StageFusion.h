//===- StageFusion.h - Which stages may share one kernel --------*- C++ -*-===//
//
// The rules of what one stage.dispatch may hold, stated once: the dispatch
// verifier enforces them, convert-stage-to-gpu lowers by them and
// --kiln-fuse-dispatches asks them before merging dispatches
// (docs/fusion.md). A dependence that would need a grid-wide barrier never
// stays inside one kernel.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_STAGE_IR_STAGEFUSION_H
#define KILN_DIALECT_STAGE_IR_STAGEFUSION_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace kiln::stage {

/// How a stage's kernel uses its grid (docs/stages.md, "Kernel shapes").
enum class GridKind {
  /// One workgroup walks the data with strides and reduces across its lanes
  /// (rmsnorm, router, cluster_logits, slerp, dory_mix).
  SingleWorkgroup,
  /// Global thread t does work no other thread depends on, guarded by the
  /// size (elementwise ops, conv_ring, embed_gather, rope_kv_write): any
  /// workgroup size, any number of workgroups covering the threads.
  PerThread,
  /// stage.matvec: a workgroup per (row, chunk) item, walking items with the
  /// grid's stride: any workgroup size, any number of workgroups.
  RowItems,
  /// A workgroup per head whose lanes cooperate (gdn_step, attention,
  /// head_rows, dory_prep): its own workgroup size and count.
  PerWorkgroup,
  /// Stages this file does not know (Dory's far field, exit test, stages
  /// added later): never fused.
  Opaque,
};
GridKind gridKindOf(mlir::Operation *stage);

/// The fused forms of a dispatch of several stages (`fusion` attribute).
enum class FusionForm {
  /// One workgroup runs the stages in order with a workgroup barrier between
  /// them; a stage of many workgroups walks them in turn. Any dependence
  /// between the stages is workgroup-local. Kinds: SingleWorkgroup,
  /// PerThread, RowItems.
  OneWorkgroup,
  /// Independent stages side by side on disjoint ranges of one grid: no
  /// stage touches what another writes. Kinds: all but Opaque.
  Concurrent,
  /// Elementwise stages over one index space: thread i computes element i of
  /// every stage in order, so the thread's own program order carries every
  /// dependence and the grid stays as wide as one stage's. Kinds: add, mul,
  /// silu_mul, sigmoid_gate, every buffer of one length, and a buffer two
  /// stages share is the same buffer, never an overlapping neighbour.
  Pointwise,
  /// Mat-vecs of the same rows (split_k 1, independent of each other) and an
  /// epilogue of per-row stages: a workgroup per row computes every mat-vec's
  /// value of that row, then the thread that stored them runs the epilogue
  /// for element `row` (gate and up rows, then silu(g)·u: the seeds'
  /// w_ffn_up). Epilogue kinds: add, mul, silu_mul, sigmoid_gate, conv_ring,
  /// every vector of the rows' length; what the epilogue writes is no
  /// mat-vec operand except a mat-vec's own output.
  RowEpilogue,
  /// One stage on its own grid, a stage.last_workgroup, then stages run in
  /// order by the workgroup that finishes the first stage last (an atomic
  /// counter; no workgroup waits). Lead kinds: RowItems, PerThread,
  /// PerWorkgroup; tail kinds: those of OneWorkgroup, walked by one
  /// workgroup at the lead's width.
  LastWorkgroup,
  /// stage.key_scores, a stage.key_blocks, then stage.attention or
  /// stage.window_attention reading its scores: one kernel on the scores'
  /// grid, each workgroup summing its block's values against its own
  /// maximum and the last workgroup of each head combining the blocks
  /// exactly (flash-decoding, with the e^-16 floor kept exact).
  SplitKeys,
};
std::optional<FusionForm> parseFusionForm(llvm::StringRef text);
llvm::StringRef fusionFormName(FusionForm form);

/// The buffers a stage writes (read too when it updates in place). A stage
/// this file does not know writes every operand.
llvm::SmallVector<mlir::Value> writtenBuffers(mlir::Operation *stage);

/// Whether two buffers may share bytes: the same value, or two function
/// arguments whose `stage.buffer` placements (slot, byte_offset, byte_size)
/// overlap (an argument without byte_size overlaps its whole slot).
bool buffersMayAlias(mlir::Value a, mlir::Value b);

/// Whether either stage writes a buffer the other touches.
bool stagesConflict(mlir::Operation *a, mlir::Operation *b);

/// Whether `stages` may form one dispatch of `form`; otherwise `whyNot`
/// names the stage and the rule.
/// The members of a `concurrent` group: each stage starts its own, except a
/// per-row stage (row_epilogue's epilogue kinds) that touches exactly one
/// earlier member, a lone mat-vec it can be a row epilogue of: it joins that
/// member and runs in the thread holding the mat-vec's row (the GDN conv
/// after qkv, beside z, a and b). Indices into `stages`, in order.
llvm::SmallVector<llvm::SmallVector<size_t>>
concurrentMembers(llvm::ArrayRef<mlir::Operation *> stages);

bool canFuse(FusionForm form, llvm::ArrayRef<mlir::Operation *> stages,
             std::string &whyNot);

/// Whether `lead` may run on its own grid before a last-workgroup tail of
/// `tail` (LastWorkgroup's rules without the marker); otherwise `whyNot`
/// names the stage and the rule.
bool canRunLastWorkgroupTail(mlir::Operation *lead, llvm::ArrayRef<mlir::Operation *> tail,
                             std::string &whyNot);

/// Whether `tail` (stage.attention or stage.window_attention) reads the
/// scores of `lead` (a stage.key_scores) over the same walk of keys (sinks,
/// windows, position word) and a value ring shaped like its key ring, so the
/// two may form a split_keys dispatch; otherwise `whyNot` names the rule.
bool canSplitKeys(mlir::Operation *lead, mlir::Operation *tail, std::string &whyNot);

/// Whether an attention stage (stage.attention or stage.window_attention)
/// has more keys a head than a kernel of its own holds in workgroup memory:
/// such an attention runs only as a split_keys dispatch.
bool exceedsOwnKernelKeys(mlir::Operation *attention);

/// The partials a split_keys dispatch of `scores` (a stage.key_scores) needs
/// with blocks of `blockKeys`: [heads, ceil(key slots / blockKeys), hd + 3].
llvm::SmallVector<int64_t, 3> splitKeysPartialsShape(mlir::Operation *scores,
                                                     int64_t blockKeys);

} // namespace kiln::stage

#endif // KILN_DIALECT_STAGE_IR_STAGEFUSION_H
