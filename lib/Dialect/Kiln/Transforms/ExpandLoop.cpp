//===- ExpandLoop.cpp - --kiln-expand-loop --------------------------------===//
//
// Unrolls Dory's kiln.loop into straight-line passes joined by explicit
// kiln.mix edges, with an scf.if per early-exit test, exactly as the loop's
// semantics in KilnOps.td spell out. Later stages see only plain ops.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace kiln::graph {
#define GEN_PASS_DEF_KILNEXPANDLOOP
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

namespace {

class LoopExpander {
public:
  LoopExpander(LoopOp loop, FloatAttr eps)
      : loop(loop), eps(eps), builder(loop) {}

  /// Builds the unrolled loop before `loop` and returns its result.
  Value expand() {
    Value h = mix(MixMode::enter, loop.getInput());
    return expandFrom(/*pass=*/0, h);
  }

private:
  Value mix(MixMode mode, Value h) {
    return MixOp::create(builder, loop.getLoc(), h.getType(), mode,
                         loop.getState(), h, eps.getValue())
        .getResult();
  }

  /// Clones `region`'s single block with `args` for its arguments and returns
  /// the value its kiln.yield yields.
  Value inlineRegion(Region &region, ArrayRef<Value> args) {
    Block &block = region.front();
    IRMapping mapping;
    for (auto [arg, value] : llvm::zip(block.getArguments(), args))
      mapping.map(arg, value);
    for (Operation &op : block.without_terminator())
      builder.clone(op, mapping);
    auto yield = cast<YieldOp>(block.getTerminator());
    return mapping.lookupOrDefault(yield.getValues().front());
  }

  /// Passes `pass` .. passes-1 from `h`, ending with the leave edge.
  Value expandFrom(int64_t pass, Value h) {
    Location loc = loop.getLoc();
    Value index = arith::ConstantIndexOp::create(builder, loc, pass);
    Value out = inlineRegion(loop.getBody(), {h, index});
    if (pass + 1 == static_cast<int64_t>(loop.getPasses()))
      return mix(MixMode::leave, out);

    std::optional<APFloat> threshold = loop.getExitThreshold();
    if (!threshold)
      return expandFrom(pass + 1, mix(MixMode::between, out));

    Value readoutInput = mix(MixMode::exit_readout, out);
    Value prob = inlineRegion(loop.getReadout(), {readoutInput});
    Value limit = arith::ConstantOp::create(
        builder, loc, builder.getF32FloatAttr(threshold->convertToFloat()));
    Value exits = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OGE,
                                        prob, limit);
    auto branch = scf::IfOp::create(builder, loc, TypeRange{h.getType()}, exits,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&branch.getThenRegion().front());
    scf::YieldOp::create(builder, loc, readoutInput);
    builder.setInsertionPointToStart(&branch.getElseRegion().front());
    Value resumed = expandFrom(pass + 1, mix(MixMode::resume, readoutInput));
    scf::YieldOp::create(builder, loc, resumed);
    return branch.getResult(0);
  }

  LoopOp loop;
  FloatAttr eps;
  OpBuilder builder;
};

struct KilnExpandLoopPass
    : public kiln::graph::impl::KilnExpandLoopBase<KilnExpandLoopPass> {
  using KilnExpandLoopBase::KilnExpandLoopBase;

  void runOnOperation() override {
    ModelOp model = getOperation();
    SmallVector<LoopOp> loops;
    // Post-order: an inner loop (if any) is expanded before its parent clones it.
    model.walk([&](LoopOp loop) { loops.push_back(loop); });
    for (LoopOp loop : loops) {
      LoopExpander expander(loop, model.getEpsAttr());
      Value result = expander.expand();
      loop.getResult().replaceAllUsesWith(result);
      loop.erase();
    }
  }
};

} // namespace
