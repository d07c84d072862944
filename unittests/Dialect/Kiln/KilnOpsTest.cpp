//===- KilnOpsTest.cpp - building and verifying kiln ops through the API -===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace kiln::graph;

namespace {

class KilnOpsTest : public ::testing::Test {
protected:
  KilnOpsTest() {
    context.loadDialect<KilnDialect, func::FuncDialect>();
    // Collect diagnostics instead of printing them, so tests can compare text.
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &context, [this](Diagnostic &diag) {
          messages.push_back(diag.str());
          return success();
        });
  }

  RankedTensorType vec(int64_t n) {
    return RankedTensorType::get({n}, Float32Type::get(&context));
  }

  /// A func with the given argument types; `build` fills it (no return).
  func::FuncOp makeFunc(ArrayRef<Type> args) {
    OpBuilder builder(&context);
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                   builder.getFunctionType(args, {}));
    fn.addEntryBlock();
    return fn;
  }

  MLIRContext context;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  std::vector<std::string> messages;
  OwningOpRef<ModuleOp> module;
};

TEST_F(KilnOpsTest, MatVecBuiltThroughTheApiVerifies) {
  auto weight = WeightType::get(&context, 96, 72, WeightFormat::q8_2f);
  func::FuncOp fn = makeFunc({weight, vec(72)});
  OpBuilder builder = OpBuilder::atBlockEnd(&fn.getBody().front());
  auto matvec = MatVecOp::create(builder, builder.getUnknownLoc(), vec(96),
                                 fn.getArgument(0), fn.getArgument(1));
  EXPECT_TRUE(succeeded(verify(matvec)));
  EXPECT_TRUE(messages.empty());
  EXPECT_EQ(getMatrixShape(weight), std::make_pair(int64_t(96), int64_t(72)));
}

TEST_F(KilnOpsTest, MatVecWithWrongInputSizeNamesTheRule) {
  auto weight = WeightType::get(&context, 96, 72, WeightFormat::f16);
  func::FuncOp fn = makeFunc({weight, vec(64)});
  OpBuilder builder = OpBuilder::atBlockEnd(&fn.getBody().front());
  auto matvec = MatVecOp::create(builder, builder.getUnknownLoc(), vec(96),
                                 fn.getArgument(0), fn.getArgument(1));
  EXPECT_TRUE(failed(verify(matvec)));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "'kiln.matvec' op input has 64 values, expected 72 "
                         "(the weight's cols)");
}

TEST_F(KilnOpsTest, RingAttentionAcceptsThreeQueryHeadsPerKvHead) {
  // Not a seed size: 3 query heads per KV head, odd head count, head_dim 12.
  auto ring = KvRingType::get(&context, /*kvHeads=*/3, /*capacity=*/5,
                              /*headDim=*/12);
  func::FuncOp fn = makeFunc({ring, vec(108), IndexType::get(&context)});
  OpBuilder builder = OpBuilder::atBlockEnd(&fn.getBody().front());
  auto attention = RingAttentionOp::create(
      builder, builder.getUnknownLoc(), vec(108), fn.getArgument(0),
      fn.getArgument(1), fn.getArgument(1), fn.getArgument(2), ValueRange{},
      /*num_q_heads=*/builder.getI64IntegerAttr(9),
      builder.getDenseI64ArrayAttr({5, 1, 3}),
      /*score_floor=*/builder.getF32FloatAttr(16.0f));
  EXPECT_TRUE(succeeded(verify(attention))) << (messages.empty() ? "" : messages[0]);
  EXPECT_EQ(attention.getNumSinks(), 0);
  EXPECT_EQ(attention.getWindowForKvHead(1), 1);
}

TEST_F(KilnOpsTest, ClusteredHeadRejectsClustersThatDoNotCoverTheVocab) {
  auto rows = WeightType::get(&context, 256, 72, WeightFormat::q8_2f);
  func::FuncOp fn =
      makeFunc({rows, vec(72), vec(15), Float32Type::get(&context)});
  OpBuilder builder = OpBuilder::atBlockEnd(&fn.getBody().front());
  auto head = ClusteredHeadOp::create(
      builder, builder.getUnknownLoc(), vec(256), fn.getArgument(0),
      fn.getArgument(1), fn.getArgument(2), fn.getArgument(3),
      /*num_clusters=*/builder.getI64IntegerAttr(15),
      /*cluster_size=*/builder.getI64IntegerAttr(16));
  EXPECT_TRUE(failed(verify(head)));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "'kiln.clustered_head' op num_clusters x cluster_size "
                         "(15 x 16 = 240) must equal the vocab (256 rows)");
}

TEST_F(KilnOpsTest, InvalidTypeParametersAreRefusedByGetChecked) {
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&context)); };
  EXPECT_FALSE(FarFieldType::getChecked(emitError, &context, int64_t(6), int64_t(4),
                                         int64_t(4), int64_t(16)));
  EXPECT_FALSE(KvRingType::getChecked(emitError, &context, int64_t(2), int64_t(0),
                                       int64_t(16)));
  EXPECT_TRUE(GdnStateType::getChecked(emitError, &context, int64_t(3),
                                        int64_t(16), int64_t(12)));
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0], "far_field q_heads (6) must be a multiple of kv_heads (4)");
  EXPECT_EQ(messages[1], "kv_ring capacity (window) (0) must be >= 1");
}

TEST_F(KilnOpsTest, ParsedModelFindsItsStep) {
  const char *text = R"mlir(
    kiln.model @m dory attributes {eps = 1.0e-06 : f32, hidden = 4 : i64,
                                   intermediate = 1 : i64, vocab = 2 : i64} {
      kiln.weight_decl @embed : !kiln.weight<[2, 4], f16>
      kiln.weight_decl @head : !kiln.weight<[2, 4], f16>
      kiln.step {
      ^bb0(%token: index, %position: index):
        %e = kiln.weight @embed : !kiln.weight<[2, 4], f16>
        %h = kiln.embed %e[%token] : !kiln.weight<[2, 4], f16> -> tensor<4xf32>
        %w = kiln.weight @head : !kiln.weight<[2, 4], f16>
        %l = kiln.matvec %w, %h : !kiln.weight<[2, 4], f16>, tensor<4xf32> -> tensor<2xf32>
        kiln.return %l : tensor<2xf32>
      }
    })mlir";
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(parsed) << (messages.empty() ? "" : messages[0]);
  auto model = *parsed->getOps<ModelOp>().begin();
  EXPECT_EQ(model.getFamily(), Family::dory);
  EXPECT_EQ(model.getVocab(), 2);
  ASSERT_TRUE(model.getStep());
  EXPECT_EQ(model.getStep().getBody().front().getNumArguments(), 2u);
}

} // namespace
