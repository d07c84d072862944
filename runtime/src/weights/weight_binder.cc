#include "weights/weight_binder.h"

#include "plan/plan_verifier.h"

#include "kiln/IO/Half.h"

#include <cstring>
#include <new>
#include <string>

namespace kiln::rt {
namespace kp = kiln::plan;

namespace {

kiln::io::DType toIoDType(kp::DType dtype) {
  switch (dtype) {
  case kp::DType::F16: return kiln::io::DType::F16;
  case kp::DType::I8: return kiln::io::DType::I8;
  default: return kiln::io::DType::F32;
  }
}

std::string planShape(const kp::WeightTensor &weight) {
  std::string text = "[";
  for (size_t i = 0; i < weight.shape()->size(); ++i)
    text += (i ? ", " : "") + std::to_string(weight.shape()->Get(i));
  return text + "]";
}

/// Whether the tensor's dims are the plan's (a negative dim never is).
bool sameShape(const kiln::io::TensorView &tensor, const kp::WeightTensor &weight) {
  if (tensor.shape.size() != weight.shape()->size())
    return false;
  for (size_t d = 0; d < tensor.shape.size(); ++d)
    if (tensor.shape[d] < 0 || static_cast<uint64_t>(tensor.shape[d]) != weight.shape()->Get(d))
      return false;
  return true;
}

} // namespace

Status checkWeightsFile(const kiln::io::SafetensorsFile &file, const kp::Plan &plan) {
  std::string prefix = "weights '" + file.path() + "'";
  if (plan.weight_format() && plan.weight_format()->size()) {
    std::string format = file.metadataValue("kiln.format");
    if (!format.empty() && format != plan.weight_format()->str())
      return invalidArgument(prefix + ": format '" + format + "' but the plan was compiled for '" +
                             plan.weight_format()->str() + "'");
  }
  if (!plan.weights())
    return okStatus();
  for (size_t i = 0; i < plan.weights()->size(); ++i) {
    const kp::WeightTensor &weight = *plan.weights()->Get(i);
    const std::string name = weight.name()->str();
    const kiln::io::TensorView *tensor = file.find(name);
    std::string where = prefix + ": tensor '" + name + "' (plan weights[" + std::to_string(i) + "])";
    if (!tensor)
      return notFound(where + " is missing");
    kiln::io::DType wanted = toIoDType(weight.dtype());
    if (tensor->dtype != wanted)
      return invalidArgument(where + " has dtype " + kiln::io::dtypeName(tensor->dtype) +
                             ", the plan expects " + kiln::io::dtypeName(wanted));
    if (!sameShape(*tensor, weight))
      return invalidArgument(where + " has shape " + kiln::io::shapeToString(tensor->shape) +
                             ", the plan expects " + planShape(weight));
  }
  return okStatus();
}

Status checkWeightsFinite(const kiln::io::SafetensorsFile &file, const kp::Plan &plan) {
  if (!plan.weights())
    return okStatus();
  for (size_t i = 0; i < plan.weights()->size(); ++i) {
    const std::string name = plan.weights()->Get(i)->name()->str();
    const kiln::io::TensorView *tensor = file.find(name);
    if (!tensor || !tensor->data)
      continue; // checkWeightsFile names a missing tensor
    // The exponent field all ones is Inf or NaN, in both widths. +Inf has a meaning in
    // one tensor kind only: a growth shell of +inf marks a trunk expert (docs/weights.md).
    const bool trunkShells =
        name.size() >= 11 && name.compare(name.size() - 11, 11, ".moe.shells") == 0;
    auto bad = [&](uint64_t at, bool nan) {
      return invalidArgument("weights '" + file.path() + "': tensor '" + name + "' holds " +
                             (nan ? "NaN" : "Inf") + " at element " + std::to_string(at) +
                             " (kiln_session_options_t.skip_weight_check skips this check)");
    };
    const uint64_t count = tensor->byteSize / kiln::io::dtypeSize(tensor->dtype);
    if (tensor->dtype == kiln::io::DType::F16) {
      const auto *halves = static_cast<const uint8_t *>(tensor->data);
      for (uint64_t e = 0; e < count; ++e) {
        uint16_t h = static_cast<uint16_t>(halves[2 * e] | (halves[2 * e + 1] << 8));
        if ((h & 0x7c00) == 0x7c00 && !(trunkShells && h == 0x7c00))
          return bad(e, (h & 0x03ff) != 0);
      }
    } else if (tensor->dtype == kiln::io::DType::F32) {
      const auto *words = static_cast<const uint8_t *>(tensor->data);
      for (uint64_t e = 0; e < count; ++e) {
        uint32_t f;
        std::memcpy(&f, words + 4 * e, 4);
        if ((f & 0x7f800000u) == 0x7f800000u && !(trunkShells && f == 0x7f800000u))
          return bad(e, (f & 0x007fffffu) != 0);
      }
    }
  }
  return okStatus();
}

Status placeWeight(const kiln::io::TensorView &tensor, const kp::WeightTensor &weight,
                   std::vector<uint8_t> &out) {
  // Defensive even past verification: `out` is sized from the plan, the loops below run
  // over the tensor, so the two must agree before any byte is written.
  std::string where = "weight '" + weight.name()->str() + "'";
  const uint64_t placed = placedWeightBytes(weight);
  if (placed == 0)
    return invalidArgument(where + ": the plan entry has no valid placement (a bad layout, or "
                                   "a size past 2^64)");
  const int64_t count = tensor.elementCount();
  uint64_t tensorBytes = 0;
  bool same = count >= 0 && tensor.dtype == toIoDType(weight.dtype()) &&
              !__builtin_mul_overflow(static_cast<uint64_t>(count),
                                      static_cast<uint64_t>(kiln::io::dtypeSize(tensor.dtype)),
                                      &tensorBytes) &&
              tensorBytes == tensor.byteSize && tensor.data && sameShape(tensor, weight);
  if (!same)
    return invalidArgument(where + ": the tensor has dtype " + kiln::io::dtypeName(tensor.dtype) +
                           " and shape " + kiln::io::shapeToString(tensor.shape) + " (" +
                           std::to_string(tensor.byteSize) + " bytes), the plan places " +
                           kp::EnumNameDType(weight.dtype()) + " " + planShape(weight));
  try {
    out.assign(placed, 0);
  } catch (const std::bad_alloc &) {
    return resourceExhausted("out of host memory placing '" + weight.name()->str() + "' (" +
                             std::to_string(placed) + " bytes)");
  }
  const uint8_t *source = static_cast<const uint8_t *>(tensor.data);
  const uint64_t elements = static_cast<uint64_t>(tensor.elementCount());
  switch (weight.layout()) {
  case kp::WeightLayout::Copy:
  case kp::WeightLayout::F32:
    std::memcpy(out.data(), source, tensor.byteSize);
    return okStatus();
  case kp::WeightLayout::F16RowMajor:
  case kp::WeightLayout::I8RowMajor: {
    const uint64_t rowBytes = static_cast<uint64_t>(tensor.shape.back()) * kiln::io::dtypeSize(tensor.dtype);
    const uint64_t pitch = weight.row_pitch_bytes() ? weight.row_pitch_bytes() : rowBytes;
    const uint64_t rows = rowBytes ? tensor.byteSize / rowBytes : 0;
    for (uint64_t r = 0; r < rows; ++r)
      std::memcpy(out.data() + r * pitch, source + r * rowBytes, rowBytes);
    return okStatus();
  }
  case kp::WeightLayout::F16ToF32:
    for (uint64_t i = 0; i < elements; ++i) {
      uint16_t bits;
      std::memcpy(&bits, source + 2 * i, 2);
      float value = kiln::io::halfBitsToFloat(bits);
      std::memcpy(out.data() + 4 * i, &value, 4);
    }
    return okStatus();
  case kp::WeightLayout::F32ToF16:
    for (uint64_t i = 0; i < elements; ++i) {
      float value;
      std::memcpy(&value, source + 4 * i, 4);
      uint16_t bits = kiln::io::floatToHalfBits(value);
      std::memcpy(out.data() + 2 * i, &bits, 2);
    }
    return okStatus();
  }
  return invalidArgument("weight '" + weight.name()->str() + "': unknown layout");
}

} // namespace kiln::rt
