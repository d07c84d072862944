#include "plan/plan_verifier.h"

#include "plan/spirv_bindings.h"
#include "plan/spirv_check.h"

#include <vulkan/vulkan_core.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>

namespace kiln::rt {
namespace kp = kiln::plan;

namespace {

// Binding numbers are bounded, not only counted: drivers size a set layout by the largest
// number plus one, which wraps for 0xffffffff. kiln-compile numbers a kernel's bindings
// 0..n-1 with n at most 31 (docs/fusion.md, max-bindings; lavapipe takes 32 a stage).
constexpr uint32_t kMaxBindingNumber = 31;
// Workgroups in one dispatch: each dimension is within the device's limit, but their
// product is unbounded by Vulkan; 2^31 keeps a flattened workgroup index a signed int.
constexpr uint64_t kMaxDispatchWorkgroups = 1ull << 31;

std::string at(const char *vector, size_t index) {
  return std::string(vector) + "[" + std::to_string(index) + "]";
}

Status bad(const std::string &path, const std::string &what) {
  return invalidArgument("plan " + path + ": " + what);
}

/// The longest name a plan may carry (a safetensors name, a kernel's, a label).
constexpr size_t kMaxNameBytes = 1024;

/// A name the runtime will print in messages and profiles: printable ASCII only, so a
/// hostile plan cannot write control bytes or broken UTF-8 to a terminal or a log.
Status checkName(const flatbuffers::String *name, const std::string &path) {
  if (!name)
    return okStatus();
  if (name->size() > kMaxNameBytes)
    return bad(path, "is " + std::to_string(name->size()) + " bytes, more than " +
                         std::to_string(kMaxNameBytes));
  for (size_t i = 0; i < name->size(); ++i) {
    const auto byte = static_cast<unsigned char>(name->c_str()[i]);
    if (byte < 0x20 || byte > 0x7e) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", byte);
      return bad(path, "byte " + std::to_string(i) + " is " + hex +
                           ", not printable ASCII (names appear in messages)");
    }
  }
  return okStatus();
}

/// How many params fields follow `rule` (the sampling rules want exactly one).
int fieldsWithRule(const kp::Plan &plan, kp::ParamRule rule) {
  int count = 0;
  if (plan.params()->fields())
    for (const kp::ParamField *field : *plan.params()->fields())
      count += field->rule() == rule;
  return count;
}

/// Every string of the plan that messages, profiles or lookups print.
Status checkNames(const kp::Plan &plan) {
  KILN_RETURN_IF_ERROR(checkName(plan.producer(), "producer"));
  KILN_RETURN_IF_ERROR(checkName(plan.model_family(), "model_family"));
  KILN_RETURN_IF_ERROR(checkName(plan.weight_format(), "weight_format"));
  if (plan.buffers())
    for (size_t i = 0; i < plan.buffers()->size(); ++i)
      KILN_RETURN_IF_ERROR(checkName(plan.buffers()->Get(i)->name(), at("buffers", i) + ".name"));
  if (plan.weights())
    for (size_t i = 0; i < plan.weights()->size(); ++i)
      KILN_RETURN_IF_ERROR(checkName(plan.weights()->Get(i)->name(), at("weights", i) + ".name"));
  if (plan.kernels())
    for (size_t i = 0; i < plan.kernels()->size(); ++i) {
      const kp::Kernel *kernel = plan.kernels()->Get(i);
      KILN_RETURN_IF_ERROR(checkName(kernel->name(), at("kernels", i) + ".name"));
      KILN_RETURN_IF_ERROR(checkName(kernel->entry_point(), at("kernels", i) + ".entry_point"));
    }
  if (plan.params() && plan.params()->fields())
    for (size_t i = 0; i < plan.params()->fields()->size(); ++i)
      KILN_RETURN_IF_ERROR(
          checkName(plan.params()->fields()->Get(i)->name(), "params." + at("fields", i) + ".name"));
  if (plan.programs())
    for (size_t p = 0; p < plan.programs()->size(); ++p) {
      const kp::Program *program = plan.programs()->Get(p);
      KILN_RETURN_IF_ERROR(checkName(program->name(), at("programs", p) + ".name"));
      if (program->dispatches())
        for (size_t d = 0; d < program->dispatches()->size(); ++d)
          KILN_RETURN_IF_ERROR(checkName(program->dispatches()->Get(d)->label(),
                                         at("programs", p) + "." + at("dispatches", d) + ".label"));
    }
  if (plan.device_flags())
    for (size_t i = 0; i < plan.device_flags()->size(); ++i)
      KILN_RETURN_IF_ERROR(
          checkName(plan.device_flags()->Get(i)->name(), at("device_flags", i) + ".name"));
  return okStatus();
}

uint32_t dtypeBytes(kp::DType dtype) {
  switch (dtype) {
  case kp::DType::F32: return 4;
  case kp::DType::F16: return 2;
  case kp::DType::I8: return 1;
  }
  return 0;
}

bool isRowLayout(kp::WeightLayout layout) {
  return layout == kp::WeightLayout::F16RowMajor || layout == kp::WeightLayout::I8RowMajor;
}

// The dtype a layout needs in the file; nullopt-like false for Copy (any dtype).
bool layoutAccepts(kp::WeightLayout layout, kp::DType dtype) {
  switch (layout) {
  case kp::WeightLayout::Copy: return true;
  case kp::WeightLayout::F16RowMajor: return dtype == kp::DType::F16;
  case kp::WeightLayout::F32: return dtype == kp::DType::F32;
  case kp::WeightLayout::I8RowMajor: return dtype == kp::DType::I8;
  case kp::WeightLayout::F16ToF32: return dtype == kp::DType::F16;
  case kp::WeightLayout::F32ToF16: return dtype == kp::DType::F32;
  }
  return false;
}

uint32_t placedElementBytes(kp::WeightLayout layout, kp::DType dtype) {
  switch (layout) {
  case kp::WeightLayout::F16ToF32: return 4;
  case kp::WeightLayout::F32ToF16: return 2;
  default: return dtypeBytes(dtype);
  }
}

uint64_t bufferSize(const kp::Plan &plan, uint32_t index) {
  return plan.buffers()->Get(index)->byte_size();
}

kp::BufferKind bufferKind(const kp::Plan &plan, uint32_t index) {
  return plan.buffers()->Get(index)->kind();
}

Status checkBufferIndex(const kp::Plan &plan, uint32_t index, const std::string &path) {
  size_t count = plan.buffers() ? plan.buffers()->size() : 0;
  if (index >= count)
    return bad(path, "buffer " + std::to_string(index) + " out of range (plan has " +
                         std::to_string(count) + " buffers)");
  return okStatus();
}

// A range [offset, offset+bytes) inside buffer `index`.
Status checkRange(const kp::Plan &plan, uint32_t index, uint64_t offset, uint64_t bytes,
                  const std::string &path) {
  KILN_RETURN_IF_ERROR(checkBufferIndex(plan, index, path));
  if (offset % 4)
    return bad(path, "offset " + std::to_string(offset) + " is not a multiple of 4");
  uint64_t size = bufferSize(plan, index);
  if (offset > size || bytes > size - offset) {
    uint64_t end;
    std::string endText = __builtin_add_overflow(offset, bytes, &end) ? "past 2^64"
                                                                       : std::to_string(end);
    return bad(path, "range [" + std::to_string(offset) + ", " + endText + ") exceeds buffer " +
                         std::to_string(index) + " (" + std::to_string(size) + " bytes)");
  }
  return okStatus();
}

std::string shapeText(const kp::WeightTensor &weight) {
  std::string text;
  for (uint64_t dim : *weight.shape())
    text += (text.empty() ? "[" : ", ") + std::to_string(dim);
  return text + "]";
}

// The bytes `weight` occupies once placed by its layout, or false with the rule it breaks
// in `why`. Every product and sum is checked: a size wrapped past 2^64 is a few bytes that
// pass the range check, and the weight binder would then write rows far past the buffer.
bool placedBytes(const kp::WeightTensor &weight, uint64_t &bytes, std::string &why) {
  if (!weight.shape() || weight.shape()->size() == 0) {
    why = "empty shape";
    return false;
  }
  uint64_t elementBytes = placedElementBytes(weight.layout(), weight.dtype());
  if (!layoutAccepts(weight.layout(), weight.dtype()) || elementBytes == 0) {
    why = std::string("layout ") + kp::EnumNameWeightLayout(weight.layout()) +
          " does not take dtype " + kp::EnumNameDType(weight.dtype());
    return false;
  }
  uint64_t elements = 1;
  for (uint64_t dim : *weight.shape())
    if (dim == 0 || __builtin_mul_overflow(elements, dim, &elements)) {
      why = "shape " + shapeText(weight) +
            (dim == 0 ? " has a zero dimension" : " has more than 2^64 elements");
      return false;
    }
  if (isRowLayout(weight.layout()) && weight.row_pitch_bytes()) {
    uint64_t cols = weight.shape()->Get(weight.shape()->size() - 1);
    uint64_t rows = elements / cols;
    uint64_t rowBytes;
    if (__builtin_mul_overflow(rows - 1, weight.row_pitch_bytes(), &bytes) ||
        __builtin_mul_overflow(cols, elementBytes, &rowBytes) ||
        __builtin_add_overflow(bytes, rowBytes, &bytes)) {
      why = "row_pitch_bytes " + std::to_string(weight.row_pitch_bytes()) + " over " +
            std::to_string(rows) + " rows overflows 64 bits";
      return false;
    }
    return true;
  }
  if (__builtin_mul_overflow(elements, elementBytes, &bytes)) {
    why = "shape " + shapeText(weight) + " at " + std::to_string(elementBytes) +
          " bytes an element overflows 64 bits";
    return false;
  }
  return true;
}

Status checkBuffers(const kp::Plan &plan) {
  if (!plan.buffers() || plan.buffers()->size() == 0)
    return bad("buffers", "the plan has no buffers");
  int paramsCount = 0;
  for (size_t i = 0; i < plan.buffers()->size(); ++i) {
    const kp::Buffer *buffer = plan.buffers()->Get(i);
    std::string path = at("buffers", i);
    if (buffer->id() != i)
      return bad(path, "id " + std::to_string(buffer->id()) + " differs from its index");
    if (buffer->kind() > kp::BufferKind::MAX)
      return bad(path, "unknown kind " + std::to_string(static_cast<int>(buffer->kind())));
    if (buffer->byte_size() == 0 || buffer->byte_size() % 4)
      return bad(path, "byte_size " + std::to_string(buffer->byte_size()) +
                           " must be a non-zero multiple of 4");
    if (buffer->kind() == kp::BufferKind::Params)
      ++paramsCount;
  }
  if (paramsCount != 1)
    return bad("buffers", "needs exactly one Params buffer, has " + std::to_string(paramsCount));
  return okStatus();
}

Status checkWeights(const kp::Plan &plan) {
  if (!plan.weights())
    return okStatus();
  std::set<std::string> names;
  for (size_t i = 0; i < plan.weights()->size(); ++i) {
    const kp::WeightTensor *weight = plan.weights()->Get(i);
    std::string path = at("weights", i);
    std::string name = weight->name()->str();
    path += " '" + name + "'";
    if (name.empty())
      return bad(path, "empty name");
    if (!names.insert(name).second)
      return bad(path, "name listed twice");
    if (weight->dtype() > kp::DType::MAX)
      return bad(path, "unknown dtype " + std::to_string(static_cast<int>(weight->dtype())));
    if (weight->layout() > kp::WeightLayout::MAX)
      return bad(path, "unknown layout " + std::to_string(static_cast<int>(weight->layout())) +
                           " (this runtime knows 0.." +
                           std::to_string(static_cast<int>(kp::WeightLayout::MAX)) + ")");
    if (!layoutAccepts(weight->layout(), weight->dtype()))
      return bad(path, std::string("layout ") + kp::EnumNameWeightLayout(weight->layout()) +
                           " does not take dtype " + kp::EnumNameDType(weight->dtype()));
    if (weight->shape()->size() == 0)
      return bad(path, "empty shape");
    for (size_t d = 0; d < weight->shape()->size(); ++d)
      if (weight->shape()->Get(d) == 0 || weight->shape()->Get(d) > (1ull << 40))
        return bad(path, "shape dimension " + std::to_string(d) + " is " +
                             std::to_string(weight->shape()->Get(d)));
    if (weight->row_pitch_bytes() != 0) {
      if (!isRowLayout(weight->layout()))
        return bad(path, "row_pitch_bytes is set but the layout has no rows");
      uint64_t rowBytes = weight->shape()->Get(weight->shape()->size() - 1) *
                          dtypeBytes(weight->dtype());
      if (weight->row_pitch_bytes() < rowBytes || weight->row_pitch_bytes() % 4)
        return bad(path, "row_pitch_bytes " + std::to_string(weight->row_pitch_bytes()) +
                             " must be a multiple of 4 and at least the row (" +
                             std::to_string(rowBytes) + " bytes)");
    }
    uint64_t placed = 0;
    std::string why;
    if (!placedBytes(*weight, placed, why))
      return bad(path, why);
    std::string destination = path + ".buffer";
    KILN_RETURN_IF_ERROR(checkBufferIndex(plan, weight->buffer(), destination));
    if (bufferKind(plan, weight->buffer()) != kp::BufferKind::Weight)
      return bad(destination, "buffer " + std::to_string(weight->buffer()) +
                                  " is not a Weight buffer");
    KILN_RETURN_IF_ERROR(checkRange(plan, weight->buffer(), weight->byte_offset(), placed, path));
  }
  return okStatus();
}

std::string featureNames(uint32_t bits) {
  std::string names;
  for (uint32_t bit = 0; bit < 8; ++bit)
    if (bits & (1u << bit)) {
      names += names.empty() ? "" : "|";
      names += kp::EnumNameSubgroupFeature(static_cast<kp::SubgroupFeature>(1u << bit));
    }
  return names;
}

Status checkKernels(const kp::Plan &plan, const DeviceLimits &limits) {
  if (!plan.kernels() || plan.kernels()->size() == 0)
    return bad("kernels", "the plan has no kernels");
  std::set<std::string> names;
  for (size_t k = 0; k < plan.kernels()->size(); ++k) {
    const kp::Kernel *kernel = plan.kernels()->Get(k);
    std::string path = at("kernels", k);
    if (!names.insert(kernel->name()->str()).second)
      return bad(path, "name '" + kernel->name()->str() + "' used twice");
    if (plan.target() == kp::Target::Vulkan && (!kernel->spirv() || kernel->spirv()->size() < 5))
      return bad(path + ".spirv", "missing (the Vulkan target needs SPIR-V words)");
    if (kernel->entry_point()->size() == 0)
      return bad(path + ".entry_point", "empty");
    if (plan.target() == kp::Target::Vulkan)
      KILN_RETURN_IF_ERROR(validateSpirv(kernel->spirv()->data(), kernel->spirv()->size(),
                                         path + " '" + kernel->name()->str() + "'"));
    if (plan.target() == kp::Target::Vulkan) {
      const uint32_t *words = kernel->spirv()->data();
      const size_t count = kernel->spirv()->size();
      const std::string name = path + " '" + kernel->name()->str() + "'";
      const uint32_t vulkan = vulkanVersionOf(words, count);
      if (vulkan > limits.apiVersion)
        return unavailable("plan " + name + ": its SPIR-V needs Vulkan 1." +
                           std::to_string(VK_API_VERSION_MINOR(vulkan)) + "; the device offers 1." +
                           std::to_string(VK_API_VERSION_MINOR(limits.apiVersion)));
      if (declaresCapability(words, count, kCapabilityCooperativeMatrixNV) &&
          !limits.cooperativeMatrixNV)
        return unavailable("plan " + name + ": runs on cooperative matrices "
                           "(VK_NV_cooperative_matrix, 16 x 8 x 16 f16 with f32 sums), which the "
                           "device lacks (compile without --prefill-matmat-cooperative)");
      if (declaresCapability(words, count, kCapabilityFloat16) && !limits.shaderFloat16)
        return unavailable("plan " + name + ": uses f16 arithmetic (shaderFloat16), which the "
                           "device lacks");
    }
    if (plan.target() == kp::Target::Vulkan) {
      // A driver may compile a kernel over the limit and fail only at dispatch, or, on
      // a CPU device, run it out of bounds.
      uint64_t shared = workgroupMemoryBytes(kernel->spirv()->data(), kernel->spirv()->size());
      if (shared > limits.maxWorkgroupMemoryBytes)
        return unavailable("plan " + path + " '" + kernel->name()->str() + "': declares " +
                           std::to_string(shared) + " bytes of workgroup memory; the device "
                           "allows " + std::to_string(limits.maxWorkgroupMemoryBytes) +
                           " (compile the plan for this device: --cost-target native)");
    }
    const kp::Dim3 *size = kernel->workgroup_size();
    if (!size)
      return bad(path + ".workgroup_size", "missing");
    uint32_t dims[3] = {size->x(), size->y(), size->z()};
    uint64_t invocations = 1;
    bool wraps = false;
    for (int d = 0; d < 3; ++d) {
      if (dims[d] == 0 || dims[d] > limits.maxWorkgroupSize[d])
        return bad(path + ".workgroup_size", "dimension " + std::to_string(d) + " is " +
                                                 std::to_string(dims[d]) + " (device allows 1.." +
                                                 std::to_string(limits.maxWorkgroupSize[d]) + ")");
      wraps = wraps || __builtin_mul_overflow(invocations, dims[d], &invocations);
    }
    if (wraps || invocations > limits.maxWorkgroupInvocations)
      return bad(path + ".workgroup_size", std::to_string(invocations) +
                                               " invocations exceed the device's " +
                                               std::to_string(limits.maxWorkgroupInvocations));
    if (kernel->push_constant_bytes() % 4 ||
        kernel->push_constant_bytes() > limits.maxPushConstantBytes)
      return bad(path + ".push_constant_bytes",
                 std::to_string(kernel->push_constant_bytes()) +
                     " must be a multiple of 4 and at most the device's " +
                     std::to_string(limits.maxPushConstantBytes));
    if (uint32_t wanted = kernel->required_subgroup_size()) {
      bool fits = wanted == limits.subgroupSize ||
                  (limits.subgroupSizeControl && (wanted & (wanted - 1)) == 0 &&
                   wanted >= limits.minSubgroupSize && wanted <= limits.maxSubgroupSize);
      if (!fits)
        return unavailable("plan " + path + ": needs subgroup size " + std::to_string(wanted) +
                           "; the device runs " + std::to_string(limits.subgroupSize) +
                           (limits.subgroupSizeControl
                                ? " (and allows " + std::to_string(limits.minSubgroupSize) + ".." +
                                      std::to_string(limits.maxSubgroupSize) + ")"
                                : " (no subgroup size control)"));
    }
    uint32_t features = static_cast<uint32_t>(kernel->required_subgroup_features());
    if (uint32_t missing = features & ~limits.subgroupFeatures)
      return unavailable("plan " + path + ": needs subgroup features " + featureNames(missing) +
                         " the device lacks");

    // binding number -> (uniform, bytes bound): duplicates are refused here, and the
    // shader's own list is checked against it below.
    std::map<uint32_t, std::pair<bool, uint64_t>> bound;
    uint32_t storageCount = 0, uniformCount = 0;
    size_t bindingCount = kernel->bindings() ? kernel->bindings()->size() : 0;
    for (size_t b = 0; b < bindingCount; ++b) {
      const kp::Binding *binding = kernel->bindings()->Get(b);
      std::string bpath = path + "." + at("bindings", b);
      KILN_RETURN_IF_ERROR(checkBufferIndex(plan, binding->buffer(), bpath));
      if (binding->binding() > kMaxBindingNumber)
        return bad(bpath, "binding " + std::to_string(binding->binding()) +
                              " out of range (a kernel's bindings are numbered 0.." +
                              std::to_string(kMaxBindingNumber) + ")");
      auto [slot, fresh] = bound.try_emplace(binding->binding());
      if (!fresh)
        return bad(bpath, "binding " + std::to_string(binding->binding()) + " used twice");
      if (binding->access() > kp::Access::MAX || binding->kind() > kp::DescriptorKind::MAX)
        return bad(bpath, "unknown access or descriptor kind");
      bool uniform = binding->kind() == kp::DescriptorKind::UniformBuffer;
      (uniform ? uniformCount : storageCount)++;
      uint64_t alignment =
          uniform ? limits.minUniformBufferOffsetAlignment : limits.minStorageBufferOffsetAlignment;
      if (alignment && binding->byte_offset() % alignment)
        return bad(bpath, "byte_offset " + std::to_string(binding->byte_offset()) +
                              " is not a multiple of the device's alignment " +
                              std::to_string(alignment));
      uint64_t size = bufferSize(plan, binding->buffer());
      uint64_t range = binding->byte_range() ? binding->byte_range()
                                             : (binding->byte_offset() < size ? size - binding->byte_offset() : 0);
      if (range == 0)
        return bad(bpath, "binds no bytes");
      KILN_RETURN_IF_ERROR(checkRange(plan, binding->buffer(), binding->byte_offset(), range, bpath));
      uint64_t maxRange = uniform ? limits.maxUniformBufferRange : limits.maxStorageBufferRange;
      if (range > maxRange)
        return unavailable("plan " + bpath + ": binds " + std::to_string(range) +
                           " bytes; the device allows " + std::to_string(maxRange) + " per " +
                           (uniform ? "uniform" : "storage") + " binding");
      if (binding->access() != kp::Access::Read &&
          bufferKind(plan, binding->buffer()) == kp::BufferKind::Weight)
        return bad(bpath, "writes weight buffer " + std::to_string(binding->buffer()));
      if (uniform && binding->access() != kp::Access::Read)
        return bad(bpath, "a uniform binding is read-only");
      slot->second = {uniform, range};
    }
    // Every buffer the shader declares must be bound, as its kind, with at least the
    // bytes its type spans (a runtime-sized one: at least one element, checked above).
    if (plan.target() == kp::Target::Vulkan)
      for (const ShaderBinding &declared :
           reflectBindings(kernel->spirv()->data(), kernel->spirv()->size())) {
        const std::string what = "the shader's binding " + std::to_string(declared.binding);
        if (declared.set != 0)
          return bad(path + ".spirv", what + " is in descriptor set " +
                                          std::to_string(declared.set) + "; plans use set 0");
        auto it = bound.find(declared.binding);
        if (it == bound.end())
          return bad(path + ".bindings", what + " is not bound by the plan");
        if (it->second.first != declared.uniform)
          return bad(path + ".bindings", what + " is a " +
                                             (declared.uniform ? "uniform" : "storage") +
                                             " buffer; the plan binds it as " +
                                             (it->second.first ? "uniform" : "storage"));
        if (it->second.second < declared.bytes)
          return bad(path + ".bindings", what + " spans " + std::to_string(declared.bytes) +
                                             " bytes; the plan binds " +
                                             std::to_string(it->second.second));
      }
    if (storageCount > limits.maxPerStageStorageBuffers ||
        uniformCount > limits.maxPerStageUniformBuffers)
      return unavailable("plan " + path + ": " + std::to_string(storageCount) + " storage and " +
                         std::to_string(uniformCount) +
                         " uniform bindings exceed the device's per-stage limits");
  }
  return okStatus();
}

Status checkParams(const kp::Plan &plan) {
  const kp::ParamBlock *params = plan.params();
  KILN_RETURN_IF_ERROR(checkBufferIndex(plan, params->buffer(), "params"));
  if (bufferKind(plan, params->buffer()) != kp::BufferKind::Params)
    return bad("params", "buffer " + std::to_string(params->buffer()) + " is not the Params buffer");
  if (params->byte_size() == 0 || params->byte_size() % 4)
    return bad("params", "byte_size " + std::to_string(params->byte_size()) +
                             " must be a non-zero multiple of 4");
  KILN_RETURN_IF_ERROR(checkRange(plan, params->buffer(), 0, params->byte_size(), "params"));
  size_t count = params->fields() ? params->fields()->size() : 0;
  for (size_t f = 0; f < count; ++f) {
    const kp::ParamField *field = params->fields()->Get(f);
    std::string path = "params." + at("fields", f) + " '" + field->name()->str() + "'";
    if (field->rule() > kp::ParamRule::MAX || field->type() > kp::ParamType::MAX)
      return bad(path, "unknown rule or type");
    bool needsN = field->rule() == kp::ParamRule::PositionModN ||
                  field->rule() == kp::ParamRule::MinPositionPlus1N ||
                  field->rule() == kp::ParamRule::Tokens;
    if (needsN && field->n() == 0)
      return bad(path, std::string("rule ") + kp::EnumNameParamRule(field->rule()) + " needs n > 0");
    bool isFloat = field->rule() == kp::ParamRule::HeadGate ||
                   field->rule() == kp::ParamRule::Temperature ||
                   field->rule() == kp::ParamRule::TopP ||
                   field->rule() == kp::ParamRule::HeadTopP;
    bool typeOk = field->rule() == kp::ParamRule::Constant ||
                  (field->type() == kp::ParamType::F32) == isFloat;
    if (!typeOk)
      return bad(path, std::string("rule ") + kp::EnumNameParamRule(field->rule()) +
                           " cannot have type " + kp::EnumNameParamType(field->type()));
    uint64_t width = field->rule() == kp::ParamRule::Tokens ? 4ull * field->n() : 4;
    if (field->byte_offset() % 4 || field->byte_offset() + width > params->byte_size())
      return bad(path, "bytes [" + std::to_string(field->byte_offset()) + ", " +
                           std::to_string(field->byte_offset() + width) +
                           ") do not fit the block of " + std::to_string(params->byte_size()) +
                           " bytes (or are unaligned)");
  }
  return okStatus();
}

Status checkReadback(const kp::Plan &plan, const kp::Readback &readback, const std::string &path,
                     bool forSampling) {
  if (readback.count() == 0)
    return bad(path, "count is 0");
  if (forSampling && readback.count() != plan.vocab_size())
    return bad(path, "count " + std::to_string(readback.count()) + " differs from vocab_size " +
                         std::to_string(plan.vocab_size()));
  if (readback.values() > kp::ReadbackValues::MAX)
    return bad(path, "unknown values kind");
  uint64_t bytes = 4ull * readback.count();
  KILN_RETURN_IF_ERROR(checkRange(plan, readback.source_buffer(), readback.source_offset(), bytes,
                                  path + ".source"));
  KILN_RETURN_IF_ERROR(checkRange(plan, readback.buffer(), readback.byte_offset(), bytes, path));
  if (bufferKind(plan, readback.buffer()) != kp::BufferKind::Readback)
    return bad(path, "buffer " + std::to_string(readback.buffer()) + " is not a Readback buffer");
  if (readback.source_buffer() == readback.buffer() &&
      readback.source_offset() != readback.byte_offset()) {
    uint64_t a = readback.source_offset(), b = readback.byte_offset();
    if ((a < b ? b - a : a - b) < bytes)
      return bad(path, "source and destination ranges overlap");
  }
  return okStatus();
}

Status checkPrograms(const kp::Plan &plan, const DeviceLimits &limits) {
  size_t count = plan.programs() ? plan.programs()->size() : 0;
  std::set<std::string> names;
  bool hasDecode = false;
  for (size_t p = 0; p < count; ++p) {
    const kp::Program *program = plan.programs()->Get(p);
    std::string name = program->name()->str();
    std::string path = at("programs", p) + " '" + name + "'";
    if (!names.insert(name).second)
      return bad(path, "name used twice");
    if (program->max_rows() == 0)
      return bad(path, "max_rows is 0");
    bool decode = name == "decode";
    if (decode) {
      hasDecode = true;
      if (program->max_rows() != 1)
        return bad(path, "decode must have max_rows 1, has " + std::to_string(program->max_rows()));
    }
    if ((decode || name == "prefill") && !program->readback())
      return bad(path, "has no readback");
    if (program->readback())
      KILN_RETURN_IF_ERROR(checkReadback(plan, *program->readback(), path + ".readback",
                                         decode || name == "prefill"));
    size_t dispatchCount = program->dispatches() ? program->dispatches()->size() : 0;
    for (size_t d = 0; d < dispatchCount; ++d) {
      const kp::Dispatch *dispatch = program->dispatches()->Get(d);
      std::string dpath = path + "." + at("dispatches", d);
      size_t kernels = plan.kernels()->size();
      if (dispatch->kernel() >= kernels)
        return bad(dpath, "kernel " + std::to_string(dispatch->kernel()) +
                              " out of range (plan has " + std::to_string(kernels) + " kernels)");
      const kp::Dim3 *grid = dispatch->grid();
      if (!grid)
        return bad(dpath + ".grid", "missing");
      uint32_t dims[3] = {grid->x(), grid->y(), grid->z()};
      uint64_t workgroups = 1;
      bool wraps = false;
      for (int i = 0; i < 3; ++i) {
        if (dims[i] == 0 || dims[i] > limits.maxWorkgroupCount[i])
          return bad(dpath + ".grid", "dimension " + std::to_string(i) + " is " +
                                          std::to_string(dims[i]) + " (device allows 1.." +
                                          std::to_string(limits.maxWorkgroupCount[i]) + ")");
        wraps = wraps || __builtin_mul_overflow(workgroups, dims[i], &workgroups);
      }
      // Per-dimension limits alone let 65535^3 workgroups through.
      if (wraps || workgroups > kMaxDispatchWorkgroups)
        return bad(dpath + ".grid", std::to_string(dims[0]) + " x " + std::to_string(dims[1]) +
                                        " x " + std::to_string(dims[2]) + " workgroups exceed " +
                                        std::to_string(kMaxDispatchWorkgroups) + " per dispatch");
      if (dispatch->grid_mode() > kp::GridMode::MAX)
        return bad(dpath, "unknown grid_mode");
      if (dispatch->calls() > kp::DispatchCalls::MAX)
        return bad(dpath, "unknown calls (" + std::to_string(static_cast<int>(dispatch->calls())) +
                              "): Every or First");
      if (dispatch->grid_mode() == kp::GridMode::Indirect)
        KILN_RETURN_IF_ERROR(checkRange(plan, dispatch->indirect_buffer(),
                                        dispatch->indirect_offset(), 12, dpath + ".indirect"));
      const kp::Kernel *kernel = plan.kernels()->Get(dispatch->kernel());
      size_t words = dispatch->push_constants() ? dispatch->push_constants()->size() : 0;
      if (words * 4 != kernel->push_constant_bytes())
        return bad(dpath + ".push_constants",
                   std::to_string(words * 4) + " bytes; kernel '" + kernel->name()->str() +
                       "' declares " + std::to_string(kernel->push_constant_bytes()));
    }
  }
  if (!hasDecode)
    return bad("programs", "no \"decode\" program");
  return okStatus();
}

Status checkDeviceFlags(const kp::Plan &plan) {
  size_t count = plan.device_flags() ? plan.device_flags()->size() : 0;
  for (size_t i = 0; i < count; ++i) {
    const kp::DeviceFlag *flag = plan.device_flags()->Get(i);
    std::string path = at("device_flags", i) + " '" + flag->name()->str() + "'";
    KILN_RETURN_IF_ERROR(checkRange(plan, flag->buffer(), flag->byte_offset(), 4, path));
    kp::BufferKind kind = bufferKind(plan, flag->buffer());
    if (kind == kp::BufferKind::Weight || kind == kp::BufferKind::Params)
      return bad(path, std::string("lives in a ") + kp::EnumNameBufferKind(kind) + " buffer");
  }
  return okStatus();
}

} // namespace

uint64_t placedWeightBytes(const kp::WeightTensor &weight) {
  uint64_t bytes = 0;
  std::string why;
  return placedBytes(weight, bytes, why) ? bytes : 0;
}

Status verifyPlanStructure(const uint8_t *data, size_t size) {
  if (size < 8)
    return invalidArgument("plan: file too small (" + std::to_string(size) +
                           " bytes); a plan starts with an 8-byte header");
  if (!flatbuffers::BufferHasIdentifier(data, kp::PlanIdentifier())) {
    std::string found;
    for (int i = 4; i < 8; ++i)
      found += (data[i] >= 32 && data[i] < 127) ? static_cast<char>(data[i]) : '?';
    return invalidArgument("plan: wrong file identifier '" + found +
                           "' (expected 'KPLN'): not a Kiln plan");
  }
  // Generous table and depth limits: a big model's plan has many kernels.
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/64, /*max_tables=*/10000000);
  if (!kp::VerifyPlanBuffer(verifier))
    return invalidArgument("plan: corrupt flatbuffer (the schema verifier rejected it: an "
                           "offset, length or required field is bad)");
  const kp::Plan *plan = kp::GetPlan(data);
  uint32_t current = static_cast<uint32_t>(kp::Version::Current);
  if (plan->schema_version() != current)
    return invalidArgument("plan: schema version " + std::to_string(plan->schema_version()) +
                           " not supported (this runtime reads version " +
                           std::to_string(current) + ")");
  return okStatus();
}

Status verifyPlanMeaning(const kp::Plan &plan, const DeviceLimits &limits) {
  if (plan.target() != kp::Target::Vulkan)
    return unavailable(std::string("plan target: ") + kp::EnumNameTarget(plan.target()) +
                       " plans do not run on the Vulkan runtime");
  if (plan.vocab_size() == 0)
    return bad("vocab_size", "is 0");
  if (plan.max_position() == 0)
    return bad("max_position", "is 0");
  KILN_RETURN_IF_ERROR(checkNames(plan));
  KILN_RETURN_IF_ERROR(checkBuffers(plan));
  KILN_RETURN_IF_ERROR(checkWeights(plan));
  KILN_RETURN_IF_ERROR(checkKernels(plan, limits));
  KILN_RETURN_IF_ERROR(checkParams(plan));
  KILN_RETURN_IF_ERROR(checkPrograms(plan, limits));
  KILN_RETURN_IF_ERROR(checkDeviceFlags(plan));
  if (plan.sampling() && (plan.sampling()->site() > kp::SamplingSite::MAX ||
                          plan.sampling()->head_gate() > kp::HeadGateRule::MAX))
    return bad("sampling", "unknown site or head_gate rule");
  if (const kp::DeviceGreedy *greedy = plan.sampling() ? plan.sampling()->greedy() : nullptr) {
    KILN_RETURN_IF_ERROR(checkRange(plan, greedy->buffer(), greedy->byte_offset(),
                                    greedy->stop_flag() ? 12 : 8, "sampling.greedy"));
    if (greedy->stop_flag()) {
      const int fields = fieldsWithRule(plan, kp::ParamRule::StopToken);
      if (fields != 1)
        return bad("sampling.greedy", "stop_flag needs exactly one StopToken params field, the "
                                      "plan has " + std::to_string(fields));
    }
    if (bufferKind(plan, greedy->buffer()) != kp::BufferKind::State)
      return bad("sampling.greedy", "must live in a State buffer");
  }
  if (plan.sampling() && plan.sampling()->site() == kp::SamplingSite::Device) {
    // The device draws: it needs its pick and the session's options, once each.
    if (!plan.sampling()->greedy())
      return bad("sampling", "site Device needs the device's pick (sampling.greedy)");
    for (kp::ParamRule rule :
         {kp::ParamRule::Temperature, kp::ParamRule::TopP, kp::ParamRule::RandomU32}) {
      const int fields = fieldsWithRule(plan, rule);
      if (fields != 1)
        return bad("sampling", std::string("site Device needs exactly one ") +
                                   kp::EnumNameParamRule(rule) + " params field, the plan has " +
                                   std::to_string(fields));
    }
  }
  return okStatus();
}

} // namespace kiln::rt
