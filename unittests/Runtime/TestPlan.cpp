#include "TestPlan.h"

#include "kiln/IO/Half.h"
#include "kiln/IO/Safetensors.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace kiln::test {

std::vector<uint32_t> loadKernel(const std::string &name) {
  std::ifstream file(std::string(KILN_TEST_SPV_DIR) + "/" + name + ".spv", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<uint32_t> words(bytes.size() / 4);
  if (!words.empty())
    std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

std::vector<uint8_t> buildPlan(const PlanSpec &spec) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<kp::Buffer>> buffers;
  for (size_t i = 0; i < spec.buffers.size(); ++i) {
    const BufferSpec &buffer = spec.buffers[i];
    buffers.push_back(kp::CreateBufferDirect(b, buffer.id == UINT32_MAX ? i : buffer.id, buffer.kind,
                                             buffer.size, true, buffer.name.c_str()));
  }
  std::vector<flatbuffers::Offset<kp::WeightTensor>> weights;
  for (const WeightSpec &weight : spec.weights)
    weights.push_back(kp::CreateWeightTensorDirect(b, weight.name.c_str(), weight.dtype, &weight.shape,
                                                   weight.buffer, weight.offset, weight.layout,
                                                   weight.rowPitch));
  std::vector<flatbuffers::Offset<kp::Kernel>> kernels;
  for (const KernelSpec &kernel : spec.kernels) {
    std::vector<flatbuffers::Offset<kp::Binding>> bindings;
    for (const BindingSpec &binding : kernel.bindings)
      bindings.push_back(kp::CreateBinding(b, binding.binding, binding.buffer, binding.access,
                                           binding.kind, binding.offset, binding.range));
    kp::Dim3 size(kernel.workgroup[0], kernel.workgroup[1], kernel.workgroup[2]);
    kp::Dim3 msl(kernel.workgroup[0], kernel.workgroup[1], kernel.workgroup[2]);
    kernels.push_back(kp::CreateKernelDirect(b, kernel.name.c_str(), &kernel.spirv, nullptr, "main",
                                             &size, &msl, &bindings, kernel.pushConstantBytes,
                                             kernel.subgroupSize,
                                             static_cast<kp::SubgroupFeature>(kernel.subgroupFeatures)));
  }
  std::vector<flatbuffers::Offset<kp::ParamField>> fields;
  for (const FieldSpec &field : spec.fields)
    fields.push_back(kp::CreateParamFieldDirect(b, field.name.c_str(), field.offset, field.type,
                                                field.rule, field.row, field.n));
  auto params = kp::CreateParamBlockDirect(b, spec.paramsBuffer, spec.paramsSize, &fields);
  std::vector<flatbuffers::Offset<kp::Program>> programs;
  for (const ProgramSpec &program : spec.programs) {
    std::vector<flatbuffers::Offset<kp::Dispatch>> dispatches;
    for (const DispatchSpec &dispatch : program.dispatches) {
      kp::Dim3 grid(dispatch.grid[0], dispatch.grid[1], dispatch.grid[2]);
      dispatches.push_back(kp::CreateDispatchDirect(
          b, dispatch.kernel, &grid, kp::GridMode::Static, 0, 0, dispatch.barrier,
          dispatch.pushConstants.empty() ? nullptr : &dispatch.pushConstants,
          dispatch.label.c_str(), /*estimated_us=*/-1, dispatch.calls));
    }
    flatbuffers::Offset<kp::Readback> readback = 0;
    if (program.readback)
      readback = kp::CreateReadback(b, program.readback->source, program.readback->sourceOffset,
                                    program.readback->buffer, program.readback->offset,
                                    program.readback->count, program.readback->values);
    programs.push_back(kp::CreateProgramDirect(b, program.name.c_str(), program.maxRows, &dispatches,
                                               readback));
  }
  std::vector<flatbuffers::Offset<kp::DeviceFlag>> flags;
  for (const FlagSpec &flag : spec.flags)
    flags.push_back(kp::CreateDeviceFlagDirect(b, flag.name.c_str(), flag.buffer, flag.offset, flag.resetValue));
  flatbuffers::Offset<kp::DeviceGreedy> greedy = 0;
  if (spec.greedy)
    greedy = kp::CreateDeviceGreedy(b, spec.greedy->first, spec.greedy->second, spec.stopFlag);
  auto sampling = kp::CreateSampling(b, spec.site, spec.headGate, greedy);
  auto plan = kp::CreatePlanDirect(b, spec.version, spec.target, "unittest", "test", "{}", "",
                                   spec.vocab, spec.maxPosition, &buffers, &weights, &kernels, params,
                                   &programs, &flags, sampling);
  b.Finish(plan, kp::PlanIdentifier());
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

std::vector<FieldSpec> standardFields() {
  return {{"token", 0, kp::ParamType::U32, kp::ParamRule::Token},
          {"position", 4, kp::ParamType::U32, kp::ParamRule::Position},
          {"ring_slot", 8, kp::ParamType::U32, kp::ParamRule::PositionModN, 0, 3},
          {"rows", 12, kp::ParamType::U32, kp::ParamRule::RowCount}};
}

PlanSpec chainPlan() {
  using A = kp::Access;
  PlanSpec spec;
  spec.buffers = {{kp::BufferKind::Weight, 128, "weights"}, {kp::BufferKind::Scratch, 32, "y"},
                  {kp::BufferKind::Scratch, 32, "z"},       {kp::BufferKind::State, 32, "s"},
                  {kp::BufferKind::Params, 16, "params"},   {kp::BufferKind::Readback, 32, "readback"}};
  spec.weights = {{"w", kp::DType::F32, {8}, 0, 0, kp::WeightLayout::F32},
                  {"x", kp::DType::F16, {2, 4}, 0, 64, kp::WeightLayout::F16ToF32}};
  const auto uniform = kp::DescriptorKind::UniformBuffer;
  spec.kernels = {
      {"axpy_position", loadKernel("axpy_position"), {4, 1, 1},
       {{0, 0, A::Read, kp::DescriptorKind::StorageBuffer, 0, 32},
        {1, 0, A::Read, kp::DescriptorKind::StorageBuffer, 64, 32},
        {2, 1, A::Write},
        {3, 4, A::Read, uniform}}},
      {"scale_add_token", loadKernel("scale_add_token"), {4, 1, 1},
       {{0, 1, A::Read}, {1, 2, A::Write}, {2, 4, A::Read, uniform}}},
      {"accumulate", loadKernel("accumulate"), {4, 1, 1}, {{0, 2, A::Read}, {1, 3, A::ReadWrite}}}};
  spec.paramsBuffer = 4;
  spec.fields = standardFields();
  ProgramSpec decode;
  decode.name = "decode";
  decode.dispatches = {{0, {2, 1, 1}, true, "axpy"}, {1, {2, 1, 1}, true, "scale"},
                       {2, {2, 1, 1}, true, "accumulate"}};
  decode.readback = ReadbackSpec{3, 0, 5, 0, 8};
  spec.programs = {decode};
  return spec;
}

float chainW(int i) { return static_cast<float>(i + 1); }
float chainX(int i) { return 0.5f * static_cast<float>(i % 4) - 0.25f; }

std::string tempDir() {
  const char *root = std::getenv("TMPDIR");
  std::string pattern = std::string(root && *root ? root : "/tmp") + "/kiln-runtime-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  const char *made = mkdtemp(buffer.data());
  return made ? made : "/tmp";
}

std::string writeChainWeights(const std::string &dir) {
  kiln::io::SafetensorsWriter writer;
  std::vector<float> w(8);
  std::vector<uint16_t> x(8);
  for (int i = 0; i < 8; ++i) {
    w[i] = chainW(i);
    x[i] = kiln::io::floatToHalfBits(chainX(i));
  }
  (void)writer.addTensor("w", kiln::io::DType::F32, {8}, w.data(), 32);
  (void)writer.addTensor("x", kiln::io::DType::F16, {2, 4}, x.data(), 16);
  std::string path = dir + "/chain.safetensors";
  (void)writer.write(path);
  return path;
}

std::string writeVectorWeights(const std::string &dir, const std::vector<float> &values) {
  kiln::io::SafetensorsWriter writer;
  (void)writer.addTensor("w", kiln::io::DType::F32, {static_cast<int64_t>(values.size())},
                         values.data(), values.size() * 4);
  std::string path = dir + "/vector.safetensors";
  (void)writer.write(path);
  return path;
}

std::string describe(kiln_status_t status) {
  if (!status)
    return "";
  std::string text = std::string(kiln_status_code_name(kiln_status_code(status))) + ": " +
                     kiln_status_message(status);
  kiln_status_free(status);
  return text;
}

} // namespace kiln::test
