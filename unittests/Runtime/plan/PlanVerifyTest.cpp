// Plan verification: every check has a case that expects its named error.
#include "TestPlan.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace kiln::test {
namespace {

class PlanVerifyTest : public ::testing::Test {
protected:
  void SetUp() override {
    kiln_instance_options_t options;
    kiln_instance_options_init(&options);
    ASSERT_EQ(describe(kiln_instance_create(&options, &instance_)), "");
  }
  void TearDown() override { kiln_instance_release(instance_); }

  // "" when the bytes load; else "CODE: message".
  std::string load(const std::vector<uint8_t> &bytes) {
    kiln_plan_t *plan = nullptr;
    std::string result = describe(kiln_plan_load_memory(instance_, bytes.data(), bytes.size(), &plan));
    kiln_plan_release(plan);
    return result;
  }
  std::string load(const PlanSpec &spec) { return load(buildPlan(spec)); }

  kiln_instance_t *instance_ = nullptr;
};

TEST_F(PlanVerifyTest, ChainPlanLoads) {
  ASSERT_FALSE(chainPlan().kernels[0].spirv.empty()) << "kernels were not assembled";
  EXPECT_EQ(load(chainPlan()), "");
  kiln_plan_t *plan = nullptr;
  auto bytes = buildPlan(chainPlan());
  ASSERT_EQ(describe(kiln_plan_load_memory(instance_, bytes.data(), bytes.size(), &plan)), "");
  kiln_plan_info_t info;
  ASSERT_EQ(describe(kiln_plan_info(plan, &info)), "");
  EXPECT_STREQ(info.model_family, "test");
  EXPECT_EQ(info.vocab_size, 8u);
  EXPECT_EQ(info.kernel_count, 3u);
  EXPECT_EQ(info.buffer_count, 6u);
  EXPECT_EQ(info.weight_count, 2u);
  EXPECT_EQ(info.prefill_max_rows, 0u);
  kiln_plan_release(plan);
}

TEST_F(PlanVerifyTest, DeviceGreedyPickMustFitAStateBuffer) {
  PlanSpec spec = chainPlan();
  spec.greedy = std::make_pair(3u, 0ull); // s: State
  EXPECT_EQ(load(spec), "");
  spec.greedy = std::make_pair(0u, 0ull); // the weights
  EXPECT_NE(load(spec).find("sampling.greedy: must live in a State buffer"), std::string::npos)
      << load(spec);
  spec.greedy = std::make_pair(3u, 28ull); // 8 bytes from 28 pass s's 32
  EXPECT_NE(load(spec).find("sampling.greedy: range [28, 36) exceeds buffer 3"), std::string::npos)
      << load(spec);
  spec.greedy = std::make_pair(99u, 0ull);
  EXPECT_NE(load(spec).find("sampling.greedy"), std::string::npos) << load(spec);
}

// A plan that draws on the device needs its pick and one field for each of
// the session's sampling options.
TEST_F(PlanVerifyTest, DeviceSamplingNeedsItsPickAndOptions) {
  PlanSpec spec = chainPlan();
  spec.site = kp::SamplingSite::Device;
  EXPECT_NE(load(spec).find("site Device needs the device's pick"), std::string::npos)
      << load(spec);
  spec.greedy = std::make_pair(3u, 0ull);
  EXPECT_NE(load(spec).find("site Device needs exactly one Temperature params field, the plan "
                            "has 0"),
            std::string::npos)
      << load(spec);
  spec.paramsSize = 32;
  spec.buffers[4].size = 32;
  spec.fields.push_back({"temperature", 16, kp::ParamType::F32, kp::ParamRule::Temperature});
  spec.fields.push_back({"top_p", 20, kp::ParamType::F32, kp::ParamRule::TopP});
  EXPECT_NE(load(spec).find("exactly one RandomU32"), std::string::npos) << load(spec);
  spec.fields.push_back({"random", 24, kp::ParamType::U32, kp::ParamRule::RandomU32});
  EXPECT_EQ(load(spec), "");
  spec.fields.push_back({"top_p2", 28, kp::ParamType::F32, kp::ParamRule::TopP});
  EXPECT_NE(load(spec).find("exactly one TopP params field, the plan has 2"), std::string::npos)
      << load(spec);
  spec.fields.pop_back();
  spec.site = static_cast<kp::SamplingSite>(7);
  EXPECT_NE(load(spec).find("unknown site"), std::string::npos) << load(spec);
}

// A continue word after the pick: 12 bytes, and the stop token it compares with.
TEST_F(PlanVerifyTest, StopFlagNeedsTwelveBytesAndAStopTokenField) {
  PlanSpec spec = chainPlan();
  spec.greedy = std::make_pair(3u, 24ull); // s: State, 32 bytes
  spec.stopFlag = true;
  EXPECT_NE(load(spec).find("sampling.greedy: range [24, 36) exceeds"), std::string::npos)
      << load(spec);
  spec.greedy = std::make_pair(3u, 16ull);
  EXPECT_NE(load(spec).find("stop_flag needs exactly one StopToken params field, the plan has 0"),
            std::string::npos)
      << load(spec);
  spec.paramsSize = 20;
  spec.buffers[4].size = 20;
  spec.fields.push_back({"stop_token", 16, kp::ParamType::U32, kp::ParamRule::StopToken});
  EXPECT_EQ(load(spec), "");
}

TEST_F(PlanVerifyTest, InvalidSpirvIsRefusedBeforeTheDriverSeesIt) {
  PlanSpec spec = chainPlan();
  ASSERT_GT(spec.kernels[0].spirv.size(), 5u);
  spec.kernels[0].spirv[3] = 2; // the id bound: every id past 1 is now out of range
  std::string error = load(spec);
  EXPECT_EQ(error.rfind("INVALID_ARGUMENT: plan kernels[0] '", 0), 0u) << error;
  EXPECT_NE(error.find("SPIR-V fails validation (Vulkan 1.1 rules): "), std::string::npos)
      << error;
}

// The length of `words`' one OpTypeArray set to `length` (its OpConstant rewritten).
void setArrayLength(std::vector<uint32_t> &words, uint32_t length) {
  uint32_t lengthId = 0;
  for (size_t at = 5; at < words.size(); at += words[at] >> 16)
    if ((words[at] & 0xffffu) == 28) // OpTypeArray %id %element %length
      lengthId = words[at + 3];
  for (size_t at = 5; at < words.size(); at += words[at] >> 16)
    if ((words[at] & 0xffffu) == 43 && words[at + 2] == lengthId) // OpConstant %type %id value
      words[at + 3] = length;
}

// A kernel that declares more workgroup memory than the device has is refused at load:
// a driver may build it and fail only at dispatch, and a CPU device runs it out of
// bounds of what it allocated.
TEST_F(PlanVerifyTest, WorkgroupMemoryPastTheDeviceLimit) {
  using A = kp::Access;
  PlanSpec spec = chainPlan();
  std::vector<uint32_t> words = loadKernel("workgroup_oob");
  ASSERT_FALSE(words.empty());
  spec.kernels = {{"wide_shared", words, {4, 1, 1},
                   {{0, 1, A::Write}, {1, 4, A::Read, kp::DescriptorKind::UniformBuffer}}}};
  spec.programs = {ProgramSpec{"decode", 1, {{0, {2, 1, 1}, true, "wide"}},
                               ReadbackSpec{1, 0, 5, 0, 8}}};
  EXPECT_EQ(load(spec), ""); // 4 floats: 16 bytes
  // 2^24 floats, 64 MiB: Vulkan devices allow 16 to a few hundred KiB.
  setArrayLength(spec.kernels[0].spirv, 1u << 24);
  std::string error = load(spec);
  EXPECT_EQ(error.rfind("UNAVAILABLE: plan kernels[0] 'wide_shared': declares 67108864 bytes of "
                        "workgroup memory; the device allows ", 0), 0u) << error;
  EXPECT_NE(error.find("(compile the plan for this device: --cost-target native)"),
            std::string::npos) << error;
}

TEST_F(PlanVerifyTest, MissingFileIsNotFound) {
  kiln_plan_t *plan = nullptr;
  std::string error = describe(kiln_plan_load_file(instance_, "/nonexistent/x.kplan", &plan));
  EXPECT_EQ(error, "NOT_FOUND: plan file: '/nonexistent/x.kplan': No such file or directory");
  EXPECT_EQ(plan, nullptr);
}

// Issue 12: the plan was mapped and re-read on every call after one verification, so
// patching the file in place while a session ran wrote out of bounds. The loaded plan now
// holds its own bytes: overwriting the file after the load changes nothing.
TEST_F(PlanVerifyTest, FileChangedAfterLoadIsNotSeen) {
  const std::string path = tempDir() + "/changed.kplan";
  std::vector<uint8_t> bytes = buildPlan(chainPlan());
  {
    FILE *f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    std::fclose(f);
  }
  kiln_plan_t *plan = nullptr;
  ASSERT_EQ(describe(kiln_plan_load_file(instance_, path.c_str(), &plan)), "");
  {
    // In place (same inode, as a patching process would): every byte 0xff.
    FILE *f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::vector<uint8_t> garbage(bytes.size(), 0xff);
    ASSERT_EQ(std::fwrite(garbage.data(), 1, garbage.size(), f), garbage.size());
    std::fclose(f);
  }
  kiln_plan_info_t info;
  ASSERT_EQ(describe(kiln_plan_info(plan, &info)), "");
  EXPECT_STREQ(info.model_family, "test");
  EXPECT_EQ(info.vocab_size, 8u);
  kiln_plan_release(plan);
  std::remove(path.c_str());
}

TEST_F(PlanVerifyTest, TooSmall) {
  std::vector<uint8_t> bytes = buildPlan(chainPlan());
  bytes.resize(4);
  EXPECT_EQ(load(bytes), "INVALID_ARGUMENT: plan: file too small (4 bytes); a plan starts with an "
                         "8-byte header");
}

TEST_F(PlanVerifyTest, Truncated) {
  std::vector<uint8_t> bytes = buildPlan(chainPlan());
  bytes.resize(bytes.size() / 2);
  EXPECT_NE(load(bytes).find("INVALID_ARGUMENT: plan: corrupt flatbuffer"), std::string::npos);
}

TEST_F(PlanVerifyTest, WrongIdentifier) {
  std::vector<uint8_t> bytes = buildPlan(chainPlan());
  std::memcpy(bytes.data() + 4, "XXXX", 4);
  EXPECT_EQ(load(bytes), "INVALID_ARGUMENT: plan: wrong file identifier 'XXXX' (expected 'KPLN'): "
                         "not a Kiln plan");
}

TEST_F(PlanVerifyTest, CorruptRootOffset) {
  std::vector<uint8_t> bytes = buildPlan(chainPlan());
  bytes[2] ^= 0x7f; // the root table offset now points far outside the buffer
  EXPECT_NE(load(bytes).find("corrupt flatbuffer"), std::string::npos);
}

// Every single flipped byte either loads or fails with a status: never a crash.
TEST_F(PlanVerifyTest, FlippedBytesNeverCrash) {
  const std::vector<uint8_t> good = buildPlan(chainPlan());
  size_t failures = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> bytes = good;
    bytes[i] ^= 0xff;
    if (!load(bytes).empty())
      ++failures;
  }
  // Header, offsets and vtables fail; bytes inside SPIR-V words or names may still load.
  EXPECT_GT(failures, good.size() / 20);
}

TEST_F(PlanVerifyTest, WrongSchemaVersion) {
  PlanSpec spec = chainPlan();
  spec.version = 2;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan: schema version 2 not supported (this runtime reads "
                        "version 1)");
}

TEST_F(PlanVerifyTest, MetalTargetIsUnavailable) {
  PlanSpec spec = chainPlan();
  spec.target = kp::Target::Metal;
  EXPECT_EQ(load(spec), "UNAVAILABLE: plan target: Metal plans do not run on the Vulkan runtime");
}

TEST_F(PlanVerifyTest, BindingBufferOutOfRange) {
  PlanSpec spec = chainPlan();
  spec.kernels[1].bindings[1].buffer = 17;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[1].bindings[1]: buffer 17 out of range "
                        "(plan has 6 buffers)");
}

// Names reach messages and profiles: a plan that would print control bytes or broken
// UTF-8 (a mutated plan did, 2026-12-04) is refused by name.
TEST_F(PlanVerifyTest, NamesArePrintableAscii) {
  PlanSpec spec = chainPlan();
  spec.kernels[1].name = "ax\x1b[2Jpy";
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[1].name: byte 2 is 0x1b, not printable "
                        "ASCII (names appear in messages)");
  spec = chainPlan();
  spec.kernels[0].name = std::string("k\xfe");
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[0].name: byte 1 is 0xfe, not printable "
                        "ASCII (names appear in messages)");
  spec = chainPlan();
  spec.kernels[0].name = std::string(1025, 'k');
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[0].name: is 1025 bytes, more than 1024");
}

TEST_F(PlanVerifyTest, BindingUsedTwice) {
  PlanSpec spec = chainPlan();
  spec.kernels[2].bindings[1].binding = 0;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[2].bindings[1]: binding 0 used twice");
}

// Issue 12: binding 0xffffffff reached vkCreateDescriptorSetLayout (binding + 1 wrapped).
TEST_F(PlanVerifyTest, BindingNumberOutOfRange) {
  PlanSpec spec = chainPlan();
  spec.kernels[2].bindings[1].binding = 0xffffffffu;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[2].bindings[1]: binding 4294967295 out of "
                        "range (a kernel's bindings are numbered 0..31)");
  spec.kernels[2].bindings[1].binding = 32;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[2].bindings[1]: binding 32 out of "
                        "range (a kernel's bindings are numbered 0..31)");
  // In range, but the shader reads binding 1 (issue 12: renumbered bindings ran).
  spec.kernels[2].bindings[1].binding = 31;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[2].bindings: the shader's binding 1 is "
                        "not bound by the plan");
}

// The plan's bindings are held to the buffers the shader declares (issue 12: dropped
// bindings, a storage buffer bound as uniform, or a range short of what the shader reads
// all ran and printed wrong tokens).
TEST_F(PlanVerifyTest, BindingsMatchTheShader) {
  PlanSpec spec = chainPlan();
  spec.kernels[1].bindings.pop_back();
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[1].bindings: the shader's binding 2 is "
                        "not bound by the plan");
  spec = chainPlan();
  spec.kernels[0].bindings[3].kind = kp::DescriptorKind::StorageBuffer;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[0].bindings: the shader's binding 3 is a "
                        "uniform buffer; the plan binds it as storage");
  spec = chainPlan();
  spec.kernels[0].bindings[3].range = 8;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[0].bindings: the shader's binding 3 "
                        "spans 16 bytes; the plan binds 8");
}

TEST_F(PlanVerifyTest, BindingRangePastBuffer) {
  PlanSpec spec = chainPlan();
  spec.kernels[0].bindings[1].range = 128;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[0].bindings[1]: range [64, 192) exceeds "
                        "buffer 0 (128 bytes)");
}

TEST_F(PlanVerifyTest, KernelWritingWeights) {
  PlanSpec spec = chainPlan();
  spec.kernels[0].bindings[0].access = kp::Access::Write;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan kernels[0].bindings[0]: writes weight buffer 0");
}

TEST_F(PlanVerifyTest, WorkgroupTooLarge) {
  PlanSpec spec = chainPlan();
  spec.kernels[0].workgroup[0] = 1u << 20;
  EXPECT_NE(load(spec).find("INVALID_ARGUMENT: plan kernels[0].workgroup_size: dimension 0 is 1048576"),
            std::string::npos);
}

TEST_F(PlanVerifyTest, UnsupportedSubgroupSize) {
  PlanSpec spec = chainPlan();
  spec.kernels[0].subgroupSize = 3; // never a power of two
  EXPECT_NE(load(spec).find("UNAVAILABLE: plan kernels[0]: needs subgroup size 3"), std::string::npos);
}

TEST_F(PlanVerifyTest, PushConstantsDisagreeWithKernel) {
  PlanSpec spec = chainPlan();
  spec.programs[0].dispatches[1].pushConstants = {7};
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan programs[0] 'decode'.dispatches[1].push_constants: 4 "
                        "bytes; kernel 'scale_add_token' declares 0");
}

TEST_F(PlanVerifyTest, DispatchKernelOutOfRange) {
  PlanSpec spec = chainPlan();
  spec.programs[0].dispatches[2].kernel = 9;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan programs[0] 'decode'.dispatches[2]: kernel 9 out of "
                        "range (plan has 3 kernels)");
}

TEST_F(PlanVerifyTest, ZeroGrid) {
  PlanSpec spec = chainPlan();
  spec.programs[0].dispatches[0].grid[1] = 0;
  EXPECT_NE(load(spec).find("dispatches[0].grid: dimension 1 is 0"), std::string::npos);
}

TEST_F(PlanVerifyTest, UnknownDispatchCalls) {
  PlanSpec spec = chainPlan();
  spec.programs[0].dispatches[1].calls = static_cast<kp::DispatchCalls>(7);
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan programs[0] 'decode'.dispatches[1]: unknown calls "
                        "(7): Every or First");
}

// Issue 12: each grid dimension was capped, the total not (65535^3 workgroups passed).
// 65535 is within every Vulkan device's per-dimension limit.
TEST_F(PlanVerifyTest, GridTotalTooLarge) {
  PlanSpec spec = chainPlan();
  spec.programs[0].dispatches[1].grid[0] = 65535;
  spec.programs[0].dispatches[1].grid[1] = 65535;
  spec.programs[0].dispatches[1].grid[2] = 65535;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan programs[0] 'decode'.dispatches[1].grid: 65535 x "
                        "65535 x 65535 workgroups exceed 2147483648 per dispatch");
  spec.programs[0].dispatches[1].grid[2] = 1; // 2^32 - 2^17 + 1, still over 2^31
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan programs[0] 'decode'.dispatches[1].grid: 65535 x "
                        "65535 x 1 workgroups exceed 2147483648 per dispatch");
  spec.programs[0].dispatches[1].grid[1] = 32768; // 2^31 - 2^15: allowed
  EXPECT_EQ(load(spec), "");
}

TEST_F(PlanVerifyTest, NoDecodeProgram) {
  PlanSpec spec = chainPlan();
  spec.programs[0].name = "step";
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan programs: no \"decode\" program");
}

TEST_F(PlanVerifyTest, ReadbackCountDiffersFromVocab) {
  PlanSpec spec = chainPlan();
  spec.programs[0].readback->count = 4;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan programs[0] 'decode'.readback: count 4 differs from "
                        "vocab_size 8");
}

TEST_F(PlanVerifyTest, ReadbackIntoDeviceBuffer) {
  PlanSpec spec = chainPlan();
  spec.programs[0].readback->buffer = 2;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan programs[0] 'decode'.readback: buffer 2 is not a "
                        "Readback buffer");
}

TEST_F(PlanVerifyTest, BufferIdDiffersFromIndex) {
  PlanSpec spec = chainPlan();
  spec.buffers[3].id = 7;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan buffers[3]: id 7 differs from its index");
}

TEST_F(PlanVerifyTest, TwoParamsBuffers) {
  PlanSpec spec = chainPlan();
  spec.buffers[1].kind = kp::BufferKind::Params;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan buffers: needs exactly one Params buffer, has 2");
}

TEST_F(PlanVerifyTest, WeightPastItsBuffer) {
  PlanSpec spec = chainPlan();
  spec.weights[1].offset = 112; // 8 widened f32 = 32 bytes: [112, 144) > 128
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan weights[1] 'x': range [112, 144) exceeds buffer 0 "
                        "(128 bytes)");
}

// Issue 12: the placed size of a pitched weight is (rows - 1) * row_pitch_bytes plus a row;
// unchecked, both the product and the sum wrapped around 2^64 to a range that fit.
TEST_F(PlanVerifyTest, WeightPlacementOverflows) {
  PlanSpec spec = chainPlan();
  // 2 * 2^63 + 8 wraps to 8 bytes: [64, 72) would fit buffer 0.
  spec.weights[1] = {"x", kp::DType::F16, {3, 4}, 0, 64, kp::WeightLayout::F16RowMajor, 1ull << 63};
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan weights[1] 'x': row_pitch_bytes "
                        "9223372036854775808 over 3 rows overflows 64 bits");
  // (2^64 - 4) + 8 wraps in the sum.
  spec.weights[1].shape = {2, 4};
  spec.weights[1].rowPitch = ~3ull;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan weights[1] 'x': row_pitch_bytes "
                        "18446744073709551612 over 2 rows overflows 64 bits");
  // 2^80 elements: once "no bytes", which fit anywhere.
  spec.weights[1] = {"x", kp::DType::F16, {1ull << 40, 1ull << 40}, 0, 64,
                     kp::WeightLayout::F16ToF32};
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan weights[1] 'x': shape [1099511627776, "
                        "1099511627776] has more than 2^64 elements");
}

TEST_F(PlanVerifyTest, WeightLayoutRefusesDtype) {
  PlanSpec spec = chainPlan();
  spec.weights[0].layout = kp::WeightLayout::F16RowMajor;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan weights[0] 'w': layout F16RowMajor does not take "
                        "dtype F32");
}

TEST_F(PlanVerifyTest, WeightInScratchBuffer) {
  PlanSpec spec = chainPlan();
  spec.weights[0].buffer = 1;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan weights[0] 'w'.buffer: buffer 1 is not a Weight buffer");
}

TEST_F(PlanVerifyTest, ParamFieldOutsideBlock) {
  PlanSpec spec = chainPlan();
  spec.fields[3].offset = 16;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan params.fields[3] 'rows': bytes [16, 20) do not fit "
                        "the block of 16 bytes (or are unaligned)");
}

TEST_F(PlanVerifyTest, ParamRuleNeedsModulus) {
  PlanSpec spec = chainPlan();
  spec.fields[2].n = 0;
  EXPECT_EQ(load(spec), "INVALID_ARGUMENT: plan params.fields[2] 'ring_slot': rule PositionModN "
                        "needs n > 0");
}

} // namespace
} // namespace kiln::test
