// Builds small Kiln plans in tests: a mutable PlanSpec (so a test can break one field)
// serialised with the flatbuffers builder, plus SPIR-V loading and weight files.
#ifndef KILN_UNITTESTS_RUNTIME_TESTPLAN_H
#define KILN_UNITTESTS_RUNTIME_TESTPLAN_H

#include "kiln/runtime.h"
#include "kiln/schemas/plan_generated.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::test {
namespace kp = kiln::plan;

struct BufferSpec {
  kp::BufferKind kind;
  uint64_t size;
  std::string name;
  uint32_t id = UINT32_MAX; // UINT32_MAX: its index
};
struct WeightSpec {
  std::string name;
  kp::DType dtype;
  std::vector<uint64_t> shape;
  uint32_t buffer;
  uint64_t offset;
  kp::WeightLayout layout = kp::WeightLayout::Copy;
  uint64_t rowPitch = 0;
};
struct BindingSpec {
  uint32_t binding, buffer;
  kp::Access access;
  kp::DescriptorKind kind = kp::DescriptorKind::StorageBuffer;
  uint64_t offset = 0, range = 0;
};
struct KernelSpec {
  std::string name;
  std::vector<uint32_t> spirv;
  uint32_t workgroup[3] = {4, 1, 1};
  std::vector<BindingSpec> bindings;
  uint32_t pushConstantBytes = 0;
  uint32_t subgroupSize = 0;
  uint32_t subgroupFeatures = 0;
};
struct FieldSpec {
  std::string name;
  uint32_t offset;
  kp::ParamType type;
  kp::ParamRule rule;
  uint32_t row = 0, n = 0;
};
struct DispatchSpec {
  uint32_t kernel;
  uint32_t grid[3] = {2, 1, 1};
  bool barrier = true;
  std::string label;
  std::vector<uint32_t> pushConstants;
  kp::DispatchCalls calls = kp::DispatchCalls::Every;
};
struct ReadbackSpec {
  uint32_t source, sourceOffset = 0, buffer, offset = 0, count;
  kp::ReadbackValues values = kp::ReadbackValues::LogProbs;
};
struct ProgramSpec {
  std::string name;
  uint32_t maxRows = 1;
  std::vector<DispatchSpec> dispatches;
  std::optional<ReadbackSpec> readback;
};
struct FlagSpec {
  std::string name;
  uint32_t buffer;
  uint64_t offset;
  uint32_t resetValue;
};
struct PlanSpec {
  uint32_t version = static_cast<uint32_t>(kp::Version::Current);
  kp::Target target = kp::Target::Vulkan;
  uint32_t vocab = 8, maxPosition = 64;
  std::vector<BufferSpec> buffers;
  std::vector<WeightSpec> weights;
  std::vector<KernelSpec> kernels;
  uint32_t paramsBuffer = 0, paramsSize = 16;
  std::vector<FieldSpec> fields;
  std::vector<ProgramSpec> programs;
  kp::HeadGateRule headGate = kp::HeadGateRule::None;
  std::vector<FlagSpec> flags;
  std::optional<std::pair<uint32_t, uint64_t>> greedy; // sampling.greedy (buffer, offset)
  kp::SamplingSite site = kp::SamplingSite::Host;
  bool stopFlag = false; // sampling.greedy.stop_flag
};

/// The SPIR-V words of Inputs/<name>.spvasm (assembled at build time); empty on error.
std::vector<uint32_t> loadKernel(const std::string &name);
/// Serialises `spec` into a finished plan buffer with the KPLN identifier.
std::vector<uint8_t> buildPlan(const PlanSpec &spec);

/// The 8-wide chain plan of the tests: y = w*x + position; z = 2y + token; s += z
/// (s is State), read back from s. Buffers: 0 weights, 1 y, 2 z, 3 s, 4 params,
/// 5 readback. Weights: "w" F32 [8] at 0, "x" F16 [2, 4] widened to f32 at 64.
PlanSpec chainPlan();
/// Params fields token@0, position@4, position mod 3 @8, row count @12.
std::vector<FieldSpec> standardFields();
/// The values of w and x in the chain plan's weights file.
float chainW(int i);
float chainX(int i);

/// A fresh temporary folder for this test.
std::string tempDir();
/// Writes the chain plan's weights ("w" F32 [8], "x" F16 [2, 4]); returns the path.
std::string writeChainWeights(const std::string &dir);
/// Writes one F32 tensor "w" [values.size()]; returns the path.
std::string writeVectorWeights(const std::string &dir, const std::vector<float> &values);

/// A status turned into "CODE: message" and freed (empty for OK), for EXPECT_* lines.
std::string describe(kiln_status_t status);

} // namespace kiln::test

#endif // KILN_UNITTESTS_RUNTIME_TESTPLAN_H
