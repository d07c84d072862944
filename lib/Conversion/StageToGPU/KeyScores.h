//===- KeyScores.h - What the two attention kernels share -------*- C++ -*-===//
//
// Shared by stage.attention and stage.window_attention: the scores q·k·scale
// of a head's keys into workgroup memory, and the weighted value sums spread
// over the workgroup in key slices.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CONVERSION_STAGETOGPU_KEYSCORES_H
#define KILN_LIB_CONVERSION_STAGETOGPU_KEYSCORES_H

#include "KernelBuilder.h"

namespace kiln {

/// What scoreKeys scores: keys [0, count) of one head.
struct KeyScoring {
  int64_t headDim = 0;
  /// Keys to score (index, the same in every thread, at least 1).
  mlir::Value count;
  /// The factor every dot product is multiplied by (f32).
  mlir::Value scale;
  /// The query at dim d.
  std::function<mlir::Value(mlir::Value d)> query;
  /// Keys below `sinkCount` (an index) are scored against `sinkQuery`
  /// instead; both unset when every key takes `query`.
  std::function<mlir::Value(mlir::Value d)> sinkQuery;
  mlir::Value sinkCount;
  /// Element d of key u; asked for u < count and d < headDim only.
  std::function<mlir::Value(mlir::Value u, mlir::Value d)> key;
  /// Workgroup memory of at least `count` f32: score u goes to [u].
  mlir::Value scores;
  /// Workgroup memory of workgroup-size f32 the lanes' partial dots meet in
  /// (free again when scoreKeys returns).
  mlir::Value partials;
};

/// Writes every key's score to `scores` and returns the largest of them and
/// `maxInit` (every thread gets it; all threads must reach the call). A key
/// is read by a group of lanes, each taking dims lane, lane + G, ..., so a
/// row is read whole by consecutive lanes (one thread a key read 4 bytes of
/// 32 rows per load: 76 us a layer at a full 1,024-key window on the H200);
/// each lane keeps several keys' loads in flight, and the groups' partial
/// dots meet in `partials`.
mlir::Value scoreKeys(KernelBuilder &kb, const KeyScoring &scoring, mlir::Value maxInit);

/// The weighted value sums of one head over the whole workgroup: S = W / hd
/// slices of hd lanes; lane d of slice s takes `slice(d, s, S)` (keys s,
/// s + S, ...), slice 0 `firstSlice(d, S)` instead when given (Dory's also
/// adds its sinks and far part); the slices' sums meet in `partials` (W f32)
/// and lane d < hd passes the total to `store(d, total)`. With W < 2·hd one
/// slice: the lanes walk the dims, each summing every key.
void sumValueSlices(
    KernelBuilder &kb, int64_t headDim, mlir::Value partials,
    const std::function<mlir::Value(mlir::Value d, mlir::Value first, mlir::Value step)> &slice,
    const std::function<mlir::Value(mlir::Value d, mlir::Value step)> &firstSlice,
    const std::function<void(mlir::Value d, mlir::Value total)> &store);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_STAGETOGPU_KEYSCORES_H
