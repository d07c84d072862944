//===- KeyScores.h - What the attention kernels share -----------*- C++ -*-===//
//
// stage.key_scores and the two attention stages that read its scores
// (stage.attention, stage.window_attention) walk one head's keys in one
// order: its sinks, then the newest ring rows, newest first. Scoring is
// spread over (head, block of keys) workgroups; the weights and value sums
// over (head, slice of head dims) workgroups, each reading the head's whole
// score row, so no step combines partial softmaxes and the e^-16 floor is
// taken against the head's true maximum.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CONVERSION_STAGETOGPU_KEYSCORES_H
#define KILN_LIB_CONVERSION_STAGETOGPU_KEYSCORES_H

#include "KernelBuilder.h"

namespace kiln {

/// The width of the key_scores and attention kernels: a block of keys or a
/// slice of dims needs no more (attention-workgroup-size, at most 256).
int64_t splitAttentionWidth(const StageToGPUOptions &o);
/// Keys one stage.key_scores workgroup scores: one trip of its lanes (G
/// lanes a key, several keys' loads in flight a lane).
int64_t keysPerScoreWorkgroup(int64_t headDim, int64_t width);
/// Head dims one attention workgroup sums: the largest power of two at most
/// 16 (or the attention-value-dims option) that divides the head dim (so
/// slices tile the head exactly).
int64_t dimsPerValueWorkgroup(int64_t headDim, const StageToGPUOptions &o);

/// One query head's keys: u < sinks is sink u, key sinks + d (d < the
/// head's ring count) the ring row of position pos − d.
struct KeyWalk {
  int64_t sinks = 0;
  int64_t capacity = 0;
  mlir::Value kvHead;
  /// pos mod capacity.
  mlir::Value current;
  /// Keys in the walk, sinks included (at least 1).
  mlir::Value count;
  /// The ring slot of key u ≥ sinks.
  mlir::Value slotOf(KernelBuilder &kb, mlir::Value u) const;
};

/// The walk of query head `head` (of qh over kvh KV heads) at `position`
/// over a ring of `capacity` rows, KV head g seeing `windowOf(g)` of them.
KeyWalk walkKeys(KernelBuilder &kb, mlir::Value head, int64_t qh, int64_t kvh,
                 int64_t capacity, int64_t sinks, mlir::Value position,
                 const std::function<int64_t(int64_t)> &windowOf);

/// Scores query head `head`'s keys first ... first + span − 1 (those of its
/// walk) as stage.key_scores does, passing each to `store(u, q·k_u·scale)`
/// (run by one thread per key); a trip of the workgroup's lanes at a time.
/// Returns the head's walk.
KeyWalk scoreKeys(stage::KeyScoresOp op, KernelBuilder &kb, mlir::Value head,
                  mlir::Value first, int64_t span,
                  const std::function<void(mlir::Value u, mlir::Value score)> &store);

/// init + Σ weight(u) · value(u, d) over the walk's keys u = first, first +
/// step, ... : the sinks' values from `sinkValue(u, d)`, the ring's from
/// `ringValue(slot, d)` (several keys' loads in flight a trip).
mlir::Value sumWeightedValues(
    KernelBuilder &kb, const KeyWalk &walk, mlir::Value d, mlir::Value first,
    mlir::Value step, mlir::Value init, const std::function<mlir::Value(mlir::Value)> &weight,
    const std::function<mlir::Value(mlir::Value u, mlir::Value d)> &sinkValue,
    const std::function<mlir::Value(mlir::Value slot, mlir::Value d)> &ringValue);

/// The weighted value sums of `dims` head dims over the whole workgroup: S =
/// W / dims slices of `dims` lanes; lane d of slice s takes `slice(d, s, S)`
/// (keys s, s + S, ...), slice 0 `firstSlice(d, S)` instead when given
/// (Dory's also adds its far part); the slices' sums meet in `partials` (W
/// f32) and lane d < dims passes the total to `store(d, total)`. With W <
/// 2·dims one slice: the lanes walk the dims, each summing every key.
void sumValueSlices(
    KernelBuilder &kb, int64_t dims, mlir::Value partials,
    const std::function<mlir::Value(mlir::Value d, mlir::Value first, mlir::Value step)> &slice,
    const std::function<mlir::Value(mlir::Value d, mlir::Value step)> &firstSlice,
    const std::function<void(mlir::Value d, mlir::Value total)> &store);

/// The `split_keys` form (SplitKeys.cpp): a workgroup per (head, block of
/// `block_keys` keys) at the attention width; the marker itself has no grid.
KernelShape splitKeysShape(stage::KeyScoresOp scores, stage::KeyBlocksOp blocks,
                           const StageToGPUOptions &o);
KernelShape shapeOf(stage::KeyBlocksOp op, const StageToGPUOptions &o);
/// The kernel of [scores, blocks, tail] (tail: stage.attention or
/// stage.window_attention).
void buildSplitKeys(stage::KeyScoresOp scores, stage::KeyBlocksOp blocks,
                    mlir::Operation *tail, KernelBuilder &kb);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_STAGETOGPU_KEYSCORES_H
