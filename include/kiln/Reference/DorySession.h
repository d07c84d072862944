//===- DorySession.h - Dory's looped block with persistent state -*- C++ -*-===//
//
// A call takes t ≥ 1 rows, the tokens at positions pos … pos+t−1, and runs
// (docs/semantics.md states each choice and the test that pins it):
//   embedding → mix 0 (enter);
//   pass p = 0 … passes−1 over all layers (the looped block = all layers):
//     per layer: q, k, v, gate from h; prep; K/V written to each row's
//     position (a later pass overwrites the same slot); near attention over
//     the KV head's sinks (if any), then max(0, pos+1−window) … pos, plus the
//     far field; sigmoid gate; W_o;
//     slerp; scaled MLP; slerp;
//   between passes: with an exit threshold, mix 3 (read-out) then the head;
//     exit when every row's max probability ≥ threshold, else mix 4; without
//     one, mix 1;
//   after the last pass: mix 2, logits = head_scale ⊙ (head·h), log_softmax.
// Rows: pass p of row i attends to the earlier rows' pass-p keys (they are
// written before any row attends); rows of earlier calls hold their final
// pass. The far field folds key j once, with its final value, when the call
// ends with j out of the last row's window; inside a call a row also sees the
// call's own keys that left its window, at the current pass's value.
// Landmarks: the pass-0 prepped query of each KV group's first query head at
// positions 0, 8, 16, … of the first call, at most m, at least 1 (position
// 0); sealed after that call.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_DORYSESSION_H
#define KILN_REFERENCE_DORYSESSION_H

#include "kiln/IO/Error.h"
#include "kiln/Reference/DoryModel.h"
#include "kiln/Reference/LoopMix.h"
#include "kiln/Reference/NystromFarField.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::ref {

/// Every place h is renormalised: "mix0" … "mix4", "slerp_attn", "slerp_mlp".
using DoryHiddenObserver =
    std::function<void(const std::string &stage, const std::vector<float> &h)>;

class DorySession {
public:
  explicit DorySession(std::shared_ptr<const DoryModel> model);

  /// Runs the rows and returns the last row's log-probabilities (V).
  io::Expected<std::vector<float>> forward(const std::vector<int> &tokens);
  /// Same, every row's log-probabilities.
  io::Expected<std::vector<std::vector<float>>>
  forwardAllRows(const std::vector<int> &tokens);

  void reset();

  size_t position() const { return position_; }
  /// Passes the last call ran (fewer than loop.passes after an early exit).
  size_t lastPassesUsed() const { return lastPassesUsed_; }
  /// Landmarks sealed for a layer's KV head (0 before the first call).
  size_t landmarkCount(size_t layer, size_t kvHead) const;
  const NystromLandmarks &landmarks(size_t layer, size_t kvHead) const;
  const FarFieldAccumulator &farField(size_t layer, size_t kvHead) const;
  /// The stored (final-pass) key of a position; hd values.
  const float *storedKey(size_t layer, size_t kvHead, size_t position) const;

  void setHiddenObserver(DoryHiddenObserver observer) {
    observer_ = std::move(observer);
  }
  const DoryModel &model() const { return *model_; }

private:
  struct LayerState {
    std::vector<float> keys, values; // [position][kvh][hd], whole history
    std::vector<NystromLandmarks> landmarks; // per KV head, once sealed
    std::vector<FarFieldAccumulator> far;    // per KV head
    size_t foldedUpTo = 0; // positions below are folded into `far`
  };

  void runLayer(size_t layer, size_t pass, std::vector<std::vector<float>> &h,
                size_t firstPosition);
  void sealLandmarks(size_t layer, const std::vector<std::vector<float>> &q,
                     size_t rows);
  std::vector<float> headLogProbs(const std::vector<float> &h) const;
  void observe(const char *stage, const std::vector<float> &h) const;

  std::shared_ptr<const DoryModel> model_;
  std::vector<LayerState> layers_;
  size_t position_ = 0;
  bool sealed_ = false;
  size_t lastPassesUsed_ = 0;
  DoryHiddenObserver observer_;
};

} // namespace kiln::ref

#endif // KILN_REFERENCE_DORYSESSION_H
