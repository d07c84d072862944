// kiln-run --check-reference: the CPU reference (lib/Reference) fed the same tokens in
// the same cut into calls as the plan, compared step by step. MLIR-free, like kiln-run.
#ifndef KILN_TOOLS_KILN_RUN_REFERENCECHECK_H
#define KILN_TOOLS_KILN_RUN_REFERENCECHECK_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::tools {

/// The reference model of one config and weights file, advanced call by call.
class ReferenceRunner {
public:
  /// Loads config and weights; on failure returns null and sets `error`.
  /// `headGate` is the session's head gate (kiln-run --head-gate, -inf = every
  /// cluster open): Embryo's hierarchical head drops the clusters below it, as
  /// the plan does; Dory has no gated head and ignores it (its plans do too).
  /// `headTopP` below 1 gates it from the cluster mass instead (kiln-run --head-top-p).
  static std::unique_ptr<ReferenceRunner> create(const std::string &configPath,
                                                 const std::string &weightsPath,
                                                 float headGate, float headTopP,
                                                 std::string &error);
  virtual ~ReferenceRunner() = default;
  /// Feeds `tokens` as ONE call (Dory: one multi-row call; Embryo: token by
  /// token) and returns the log-probabilities after the last one, or sets `error`.
  virtual bool call(const std::vector<int32_t> &tokens, std::vector<float> &logprobs,
                    std::string &error) = 0;
  /// Calls so far, and those that left Dory's loop early (exit_threshold met).
  size_t calls() const { return calls_; }
  size_t earlyExits() const { return earlyExits_; }

protected:
  size_t calls_ = 0, earlyExits_ = 0;
};

struct StepComparison {
  int32_t planToken = 0, referenceToken = 0;
  double maxAbsError = 0; ///< over all V log-probs; inf when only one side is -inf
};

/// Greedy choice of the reference (ties -> lower id) and the error of one step.
StepComparison compareStep(int32_t planToken, const std::vector<float> &plan,
                           const std::vector<float> &reference);

/// Draws at a temperature above 0, checked against the reference's law: each drawn
/// token must lie in the reference's top-p set (a token whose weight strictly above
/// is below top_p of the total, with `slack` of the total for rounding at the cut),
/// and the draws' randomized PIT over the set, sorted by probability, must be
/// uniform (a chi-square over equal bins; docs/runtime.md).
class DrawCheck {
public:
  DrawCheck(float temperature, float topP, int bins = 10)
      : temperature_(temperature), topP_(topP), bins_(static_cast<size_t>(bins), 0.0) {}
  /// Adds one step; false when `token` lies outside the reference's top-p set.
  bool add(int32_t token, const std::vector<float> &reference);
  size_t draws() const { return draws_; }
  size_t outside() const { return outside_; }
  /// The PIT histogram's chi-square and its critical value at significance 1e-6.
  double chiSquare() const;
  double critical() const;

private:
  float temperature_, topP_;
  std::vector<double> bins_;
  size_t draws_ = 0, outside_ = 0;
};

} // namespace kiln::tools

#endif // KILN_TOOLS_KILN_RUN_REFERENCECHECK_H
