//===- CooperativeMatrixNVTest.cpp - KHR cooperative matrices as NV ones -===//
//
// A kernel in SPV_KHR_cooperative_matrix as MLIR lowers gpu.subgroup_mma (a 16x16 A, a
// 16x8 B, a 16x8 f32 accumulator: load, multiply-add, store), serialized by MLIR's own
// serializer, fails the runtime's validator (SPIRV-Tools 2023.1) as it is and
// passes it once rewritten to SPV_NV_cooperative_matrix; the rewrite's refusals
// name their rule.
//
//===----------------------------------------------------------------------===//
#include "kiln/Target/SPIRV/CooperativeMatrixNV.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/SPIRV/Serialization.h"

#include <gtest/gtest.h>
#include <spirv-tools/libspirv.h>

#include <string>

namespace {

/// The kernel with N columns of B and the accumulator (16 makes B's type A's
/// but for the use) and B's layout.
std::string kernelText(llvm::StringRef n, llvm::StringRef bLayout) {
  std::string b = "!spirv.coopmatrix<16x" + n.str() + "xf16, Subgroup, MatrixB>";
  std::string acc = "!spirv.coopmatrix<16x" + n.str() + "xf32, Subgroup, MatrixAcc>";
  return R"(
spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader, Float16, StorageBuffer16BitAccess, CooperativeMatrixKHR], [SPV_KHR_16bit_storage, SPV_KHR_storage_buffer_storage_class, SPV_KHR_cooperative_matrix]> {
  spirv.GlobalVariable @a bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<256 x f16, stride=2> [0])>, StorageBuffer>
  spirv.GlobalVariable @b bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<256 x f16, stride=2> [0])>, StorageBuffer>
  spirv.GlobalVariable @c bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.array<256 x f32, stride=4> [0])>, StorageBuffer>
  spirv.func @mma() "None" {
    %zero = spirv.Constant 0 : i32
    %a = spirv.mlir.addressof @a : !spirv.ptr<!spirv.struct<(!spirv.array<256 x f16, stride=2> [0])>, StorageBuffer>
    %b = spirv.mlir.addressof @b : !spirv.ptr<!spirv.struct<(!spirv.array<256 x f16, stride=2> [0])>, StorageBuffer>
    %c = spirv.mlir.addressof @c : !spirv.ptr<!spirv.struct<(!spirv.array<256 x f32, stride=4> [0])>, StorageBuffer>
    %pa = spirv.AccessChain %a[%zero, %zero] : !spirv.ptr<!spirv.struct<(!spirv.array<256 x f16, stride=2> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f16, StorageBuffer>
    %pb = spirv.AccessChain %b[%zero, %zero] : !spirv.ptr<!spirv.struct<(!spirv.array<256 x f16, stride=2> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f16, StorageBuffer>
    %pc = spirv.AccessChain %c[%zero, %zero] : !spirv.ptr<!spirv.struct<(!spirv.array<256 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %s16 = spirv.Constant 16 : i32
    %s8 = spirv.Constant 8 : i32
    %ma = spirv.KHR.CooperativeMatrixLoad %pa, %s16, <RowMajor> : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
    %mb = spirv.KHR.CooperativeMatrixLoad %pb, %s16, <)" +
         bLayout.str() + R"(> : !spirv.ptr<f16, StorageBuffer>, i32 -> )" + b + R"(
    %mc = spirv.KHR.CooperativeMatrixLoad %pc, %s8, <RowMajor> : !spirv.ptr<f32, StorageBuffer>, i32 -> )" +
         acc + R"(
    %md = spirv.KHR.CooperativeMatrixMulAdd %ma, %mb, %mc : !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>, )" +
         b + " -> " + acc + R"(
    spirv.KHR.CooperativeMatrixStore %pc, %md, %s8, <RowMajor> : !spirv.ptr<f32, StorageBuffer>, )" +
         acc + R"(, i32
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @mma, @a, @b, @c
  spirv.ExecutionMode @mma "LocalSize", 32, 1, 1
}
)";
}

/// MLIR's serialization of `text` (a spirv.module).
std::vector<uint32_t> serialize(const std::string &text) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::spirv::SPIRVDialect>();
  mlir::OwningOpRef<mlir::spirv::ModuleOp> module =
      mlir::parseSourceString<mlir::spirv::ModuleOp>(text, &context);
  EXPECT_TRUE(module);
  llvm::SmallVector<uint32_t> words;
  if (!module || mlir::failed(mlir::spirv::serialize(*module, words)))
    return {};
  return {words.begin(), words.end()};
}

/// The validator's verdict under Vulkan 1.3 rules (SPIR-V 1.6): "" or why not.
std::string validate(const std::vector<uint32_t> &words) {
  spv_context context = spvContextCreate(SPV_ENV_VULKAN_1_3);
  spv_const_binary_t binary{words.data(), words.size()};
  spv_diagnostic diagnostic = nullptr;
  std::string why;
  if (spvValidate(context, &binary, &diagnostic) != SPV_SUCCESS)
    why = diagnostic && diagnostic->error ? diagnostic->error : "rejected";
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  return why;
}

/// Whether `words` holds an instruction with opcode `op`.
bool hasOpcode(const std::vector<uint32_t> &words, uint32_t op) {
  for (size_t i = 5; i < words.size() && (words[i] >> 16) != 0; i += words[i] >> 16)
    if ((words[i] & 0xffffu) == op)
      return true;
  return false;
}

std::string errorOf(llvm::Expected<std::vector<uint32_t>> result) {
  if (result)
    return "";
  return llvm::toString(result.takeError());
}

TEST(CooperativeMatrixNV, RewrittenKernelPassesTheRuntimesValidator) {
  std::vector<uint32_t> khr = serialize(kernelText("8", "ColumnMajor"));
  ASSERT_FALSE(khr.empty());
  // The blocker: SPIRV-Tools 2023.1 does not know the KHR capability.
  EXPECT_NE(validate(khr), "");
  llvm::Expected<std::vector<uint32_t>> nv = kiln::cooperativeMatrixKHRToNV(khr);
  ASSERT_TRUE(static_cast<bool>(nv)) << llvm::toString(nv.takeError());
  EXPECT_EQ(validate(*nv), "");
  EXPECT_TRUE(hasOpcode(*nv, 5359));  // OpCooperativeMatrixLoadNV
  EXPECT_TRUE(hasOpcode(*nv, 5361));  // OpCooperativeMatrixMulAddNV
  EXPECT_TRUE(hasOpcode(*nv, 41));    // OpConstantTrue: B's column-major load
  EXPECT_FALSE(hasOpcode(*nv, 4457)); // no KHR load is left
}

TEST(CooperativeMatrixNV, ModuleWithoutCooperativeMatricesIsUnchanged) {
  std::vector<uint32_t> plain = serialize(R"(
spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], []> {
  spirv.func @main() "None" { spirv.Return }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}
)");
  ASSERT_FALSE(plain.empty());
  llvm::Expected<std::vector<uint32_t>> same = kiln::cooperativeMatrixKHRToNV(plain);
  ASSERT_TRUE(static_cast<bool>(same));
  EXPECT_EQ(*same, plain);
}

TEST(CooperativeMatrixNV, TypesDifferingOnlyInUseAreRefused) {
  // B as 16x16 f16 is A's type but for its use: NV types have none.
  std::vector<uint32_t> khr = serialize(kernelText("16", "RowMajor"));
  ASSERT_FALSE(khr.empty());
  EXPECT_NE(errorOf(kiln::cooperativeMatrixKHRToNV(khr)).find("differ only in their use"),
            std::string::npos);
}

TEST(CooperativeMatrixNV, MalformedModulesAreRefused) {
  std::vector<uint32_t> khr = serialize(kernelText("8", "RowMajor"));
  ASSERT_GT(khr.size(), 8u);
  EXPECT_NE(errorOf(kiln::cooperativeMatrixKHRToNV({1, 2, 3})).find("not a SPIR-V module"),
            std::string::npos);
  // The last instruction (OpFunctionEnd) claiming 5 words where 1 is left.
  std::vector<uint32_t> overrun = khr;
  overrun.back() = 5u << 16 | 56u;
  EXPECT_NE(errorOf(kiln::cooperativeMatrixKHRToNV(overrun)).find("malformed instruction"),
            std::string::npos);
}

} // namespace
