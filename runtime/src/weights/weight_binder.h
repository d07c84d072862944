// Binding a safetensors file to a plan's weight list: the file is refused at the first
// plan entry whose tensor is missing or has another dtype or shape; each tensor is then
// placed in its buffer's bytes by the entry's layout (docs/plan.md, "Weights").
#ifndef KILN_RUNTIME_WEIGHTS_WEIGHT_BINDER_H
#define KILN_RUNTIME_WEIGHTS_WEIGHT_BINDER_H

#include "base/status.h"

#include "kiln/IO/Safetensors.h"
#include "kiln/schemas/plan_generated.h"

#include <vector>

namespace kiln::rt {

/// Checks every weight of `plan` against `file` in plan order (and the file's
/// kiln.format against the plan's weight_format when both are set).
Status checkWeightsFile(const kiln::io::SafetensorsFile &file, const kiln::plan::Plan &plan);

/// The bytes `weight` occupies in its buffer (from its byte_offset on), made from
/// `tensor` by the weight's layout; padding of pitched rows is zero.
/// Refuses the first F16/F32 weight the plan binds that holds a NaN or an Inf,
/// naming the tensor and the element (I8 codes are always finite); +Inf is allowed
/// in `*.moe.shells`, where it marks a trunk expert.
Status checkWeightsFinite(const kiln::io::SafetensorsFile &file, const kiln::plan::Plan &plan);

Status placeWeight(const kiln::io::TensorView &tensor, const kiln::plan::WeightTensor &weight,
                   std::vector<uint8_t> &out);

} // namespace kiln::rt

#endif // KILN_RUNTIME_WEIGHTS_WEIGHT_BINDER_H
