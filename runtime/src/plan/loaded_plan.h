// LoadedPlan: a verified plan's bytes and typed read-only views of them. Built only by
// load(), which runs every check of plan_verifier; afterwards nothing is re-checked.
#ifndef KILN_RUNTIME_PLAN_LOADED_PLAN_H
#define KILN_RUNTIME_PLAN_LOADED_PLAN_H

#include "base/owned_bytes.h"
#include "base/status.h"
#include "plan/device_limits.h"

#include "kiln/schemas/plan_generated.h"

#include <memory>

namespace kiln::rt {

class LoadedPlan {
public:
  /// Verifies `bytes` against `limits`; on success `out` owns them.
  static Status load(std::unique_ptr<OwnedBytes> bytes, const DeviceLimits &limits,
                     std::unique_ptr<LoadedPlan> &out);

  const kiln::plan::Plan &root() const { return *root_; }
  const kiln::plan::Program &decode() const { return *root_->programs()->Get(decodeIndex_); }
  /// Null when the plan has no "prefill" program.
  const kiln::plan::Program *prefill() const {
    return prefillIndex_ < 0 ? nullptr : root_->programs()->Get(prefillIndex_);
  }
  uint32_t decodeIndex() const { return decodeIndex_; }
  int32_t prefillIndex() const { return prefillIndex_; }

  /// Device bytes one call of `program` moves: the plan's estimate, else the sum of the
  /// ranges its dispatches bind.
  uint64_t bytesPerCall(const kiln::plan::Program &program) const;
  /// The bytes kernel `kernel`'s bindings cover (whole ranges: an upper bound of
  /// what one dispatch of it reads and writes).
  uint64_t boundBytes(uint32_t kernel) const;

private:
  LoadedPlan() = default;
  std::unique_ptr<OwnedBytes> bytes_;
  const kiln::plan::Plan *root_ = nullptr;
  uint32_t decodeIndex_ = 0;
  int32_t prefillIndex_ = -1;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_PLAN_LOADED_PLAN_H
