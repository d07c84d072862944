// Plan verification (habit 15): structure first (size, file identifier, the flatc
// Verifier, schema version), then meaning (indices, sizes, layouts, and the device's
// limits). Messages give the path of the bad entry: "plan kernels[4].bindings[2]: ...".
// Past these checks the session reads the plan without bounds checks.
#ifndef KILN_RUNTIME_PLAN_PLAN_VERIFIER_H
#define KILN_RUNTIME_PLAN_PLAN_VERIFIER_H

#include "base/status.h"
#include "plan/device_limits.h"

#include "kiln/schemas/plan_generated.h"

#include <cstddef>
#include <cstdint>

namespace kiln::rt {

/// Checks `size` bytes at `data` hold a Kiln plan of this runtime's schema version.
Status verifyPlanStructure(const uint8_t *data, size_t size);

/// Checks a structurally valid plan's meaning against a device's limits.
Status verifyPlanMeaning(const kiln::plan::Plan &plan, const DeviceLimits &limits);

/// Bytes a weight occupies in its buffer once placed by its layout; 0 when the layout
/// does not fit the dtype or the shape is empty (verifyPlanMeaning reports those).
uint64_t placedWeightBytes(const kiln::plan::WeightTensor &weight);

} // namespace kiln::rt

#endif // KILN_RUNTIME_PLAN_PLAN_VERIFIER_H
