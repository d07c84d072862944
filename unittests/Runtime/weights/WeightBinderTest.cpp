// Weight placement (runtime/src/weights/weight_binder): the bytes each layout makes, and
// that placeWeight never writes outside its output, even for a tensor or plan entry that
// was not verified (issue 12). No device needed.
#include "TestPlan.h"

#include "plan/plan_verifier.h"
#include "weights/weight_binder.h"

#include "kiln/IO/Half.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::test {
namespace {

// A plan holding one weight entry; the bytes must outlive the entry.
struct OneWeight {
  explicit OneWeight(const WeightSpec &weight) {
    PlanSpec spec = chainPlan();
    spec.weights = {weight};
    bytes = buildPlan(spec);
  }
  const kp::WeightTensor &entry() const { return *kp::GetPlan(bytes.data())->weights()->Get(0); }
  std::vector<uint8_t> bytes;
};

kiln::io::TensorView view(kiln::io::DType dtype, std::vector<int64_t> shape, const void *data,
                          size_t byteSize) {
  kiln::io::TensorView tensor;
  tensor.name = "x";
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  tensor.data = data;
  tensor.byteSize = byteSize;
  return tensor;
}

std::string place(const kiln::io::TensorView &tensor, const OneWeight &plan,
                  std::vector<uint8_t> &out) {
  rt::Status status = rt::placeWeight(tensor, plan.entry(), out);
  return status.ok() ? "" : status.message();
}

TEST(WeightBinderTest, PitchedRowsArePaddedWithZeros) {
  OneWeight plan({"x", kp::DType::F16, {2, 3}, 0, 0, kp::WeightLayout::F16RowMajor, 8});
  std::vector<uint16_t> values = {1, 2, 3, 4, 5, 6};
  std::vector<uint8_t> out;
  ASSERT_EQ(place(view(kiln::io::DType::F16, {2, 3}, values.data(), 12), plan, out), "");
  ASSERT_EQ(out.size(), 14u); // one pitch of 8, then the last row's 6 bytes
  std::vector<uint16_t> placed(7);
  std::memcpy(placed.data(), out.data(), 14);
  EXPECT_EQ(placed, (std::vector<uint16_t>{1, 2, 3, 0, 4, 5, 6}));
}

TEST(WeightBinderTest, WidensHalves) {
  OneWeight plan({"x", kp::DType::F16, {2}, 0, 0, kp::WeightLayout::F16ToF32});
  std::vector<uint16_t> values = {kiln::io::floatToHalfBits(0.5f), kiln::io::floatToHalfBits(-2.0f)};
  std::vector<uint8_t> out;
  ASSERT_EQ(place(view(kiln::io::DType::F16, {2}, values.data(), 4), plan, out), "");
  ASSERT_EQ(out.size(), 8u);
  float placed[2];
  std::memcpy(placed, out.data(), 8);
  EXPECT_EQ(placed[0], 0.5f);
  EXPECT_EQ(placed[1], -2.0f);
}

// (rows - 1) * pitch wrapped to 2^64: placeWeight sized its output from the wrapped value
// and then wrote rows at r * pitch.
TEST(WeightBinderTest, RefusesAPitchThatOverflows) {
  OneWeight plan({"x", kp::DType::F16, {3, 4}, 0, 0, kp::WeightLayout::F16RowMajor, 1ull << 63});
  EXPECT_EQ(rt::placedWeightBytes(plan.entry()), 0u);
  std::vector<uint16_t> values(12);
  std::vector<uint8_t> out;
  EXPECT_EQ(place(view(kiln::io::DType::F16, {3, 4}, values.data(), 24), plan, out),
            "weight 'x': the plan entry has no valid placement (a bad layout, or a size past "
            "2^64)");
}

// The tensor, not the plan, set how much was written: more elements than the plan's shape
// ran past the output.
TEST(WeightBinderTest, RefusesATensorOtherThanThePlans) {
  std::vector<uint8_t> data(64);
  std::vector<uint8_t> out;
  OneWeight widen({"x", kp::DType::F16, {2, 4}, 0, 0, kp::WeightLayout::F16ToF32});
  EXPECT_EQ(place(view(kiln::io::DType::F16, {4, 4}, data.data(), 32), widen, out),
            "weight 'x': the tensor has dtype F16 and shape [4, 4] (32 bytes), the plan places "
            "F16 [2, 4]");
  OneWeight copy({"x", kp::DType::F32, {8}, 0, 0, kp::WeightLayout::Copy});
  EXPECT_EQ(place(view(kiln::io::DType::F32, {16}, data.data(), 64), copy, out),
            "weight 'x': the tensor has dtype F32 and shape [16] (64 bytes), the plan places "
            "F32 [8]");
  // The right shape but fewer bytes than it needs: reads would run past the tensor.
  EXPECT_EQ(place(view(kiln::io::DType::F32, {8}, data.data(), 16), copy, out),
            "weight 'x': the tensor has dtype F32 and shape [8] (16 bytes), the plan places "
            "F32 [8]");
  OneWeight rows({"x", kp::DType::I8, {2, 8}, 0, 0, kp::WeightLayout::I8RowMajor, 12});
  EXPECT_EQ(place(view(kiln::io::DType::F16, {2, 8}, data.data(), 32), rows, out),
            "weight 'x': the tensor has dtype F16 and shape [2, 8] (32 bytes), the plan places "
            "I8 [2, 8]");
}

} // namespace
} // namespace kiln::test
