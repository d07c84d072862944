//===- EmbryoSession.h - Embryo's token step with persistent state -*- C++ -*-===//
//
// One token per step (MODELS.md, Embryo token step): embedding, per layer
// rms-norm → GDN or anchor mixer → residual → rms-norm → shared FFN (+ the
// routed expert) → residual, then the final norm and the hierarchical head.
// The session owns the state that persists across tokens: the conv rings and
// delta-rule states of GDN layers and the KV rings of anchor layers.
//
// The head gate: −∞ by default (every cluster open; log-probs sum to 1).
// setHeadGate fixes a gate; setHeadTopP derives it per step from the step's
// own cluster log-probs (HierarchicalHead.h states the rule). Tokens of a
// dropped cluster come back as −∞.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_EMBRYOSESSION_H
#define KILN_REFERENCE_EMBRYOSESSION_H

#include "kiln/IO/Error.h"
#include "kiln/Reference/AnchorAttention.h"
#include "kiln/Reference/CausalConv.h"
#include "kiln/Reference/EmbryoModel.h"
#include "kiln/Reference/GatedDeltaRule.h"
#include "kiln/Reference/ResonanceRouter.h"

#include <memory>
#include <optional>
#include <vector>

namespace kiln::ref {

class EmbryoSession {
public:
  explicit EmbryoSession(std::shared_ptr<const EmbryoModel> model);

  /// Runs `token` at the current position and returns the log-probabilities
  /// of the next token (V values). Errors: a token outside [0, V), or a
  /// position past the config's max_position.
  io::Expected<std::vector<float>> step(int token);

  /// Back to position 0 with zero state.
  void reset();

  /// A fixed gate (a log-probability); −∞ computes every cluster.
  void setHeadGate(float gate);
  /// The gate of each step from its cluster log-probs and top_p (≥ 1: all).
  void setHeadTopP(float topP);
  /// The gate the last step used.
  float lastHeadGate() const { return lastGate_; }

  size_t position() const { return position_; }
  /// The expert each MoE layer picked in the last step (layer order).
  const std::vector<size_t> &lastExperts() const { return lastExperts_; }
  /// The full decision (errors, scores) of each MoE layer in the last step.
  const std::vector<RouteDecision> &lastRoutes() const { return lastRoutes_; }
  /// The final hidden vector of the last step (before the final norm).
  const std::vector<float> &lastHidden() const { return lastHidden_; }
  const EmbryoModel &model() const { return *model_; }

private:
  struct LayerState {
    CausalConvRing conv;
    std::vector<DeltaRuleState> heads;
    AnchorKvRing ring;
  };

  std::vector<float> gdnMixer(size_t layer, const std::vector<float> &x);
  std::vector<float> anchorMixer(size_t layer, const std::vector<float> &x);
  std::vector<float> feedForward(size_t layer, const std::vector<float> &x2);

  std::shared_ptr<const EmbryoModel> model_;
  std::vector<LayerState> state_;
  size_t position_ = 0;
  float fixedGate_;
  std::optional<float> topP_;
  float lastGate_;
  std::vector<size_t> lastExperts_;
  std::vector<RouteDecision> lastRoutes_;
  std::vector<float> lastHidden_;
};

} // namespace kiln::ref

#endif // KILN_REFERENCE_EMBRYOSESSION_H
