//===- Rows.cpp - Kernels of a multi-row program (@prefill) ---------------===//
#include "Rows.h"
#include "VectorViews.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;

namespace kiln {

static std::optional<RowMode> rowModeOfStage(Operation *op, int64_t maxRows,
                                             const StageToGPUOptions &o) {
  if (auto matvec = dyn_cast<stage::MatVecOp>(op);
      matvec && runsRowsTogether(matvec, maxRows, o))
    return RowMode::Together;
  if (auto gdn = dyn_cast<stage::GdnStepOp>(op); gdn && gdnRowsWidth(gdn, maxRows, o) > 0)
    return RowMode::Together;
  if (isa<stage::ConvRingOp, stage::GdnStepOp>(op))
    return RowMode::InOrder;
  if (isa<stage::ClusterLogitsOp, stage::HeadRowsOp, stage::SampleOp>(op))
    return RowMode::LastRow;
  if (isa<stage::EmbedGatherOp, stage::RMSNormOp, stage::MatVecOp, stage::SiluMulOp,
          stage::AddOp, stage::MulOp, stage::SigmoidGateOp, stage::RopeKvWriteOp,
          stage::KeyScoresOp, stage::AttentionOp, stage::RouterOp>(op))
    return RowMode::Apart;
  return std::nullopt;
}

FailureOr<RowMode> rowModeOf(Operation *dispatch, Block &body, int64_t maxRows,
                             const StageToGPUOptions &o) {
  std::optional<RowMode> mode;
  for (Operation &op : body) {
    std::optional<RowMode> own = rowModeOfStage(&op, maxRows, o);
    if (!own)
      return op.emitOpError("has no multi-row kernel (a @prefill of Embryo's stages only; "
                            "docs/pipeline.md, \"Rows\")");
    if (mode && *mode != *own)
      return dispatch->emitOpError("holds stages that run their rows differently "
                                   "(apart, in order, last row only)");
    mode = own;
  }
  if (!mode)
    return dispatch->emitOpError("holds no stage");
  if (*mode == RowMode::Together && !llvm::hasSingleElement(body))
    return dispatch->emitOpError("runs a stage's call rows together with a stage beside it");
  return *mode;
}

MemRefType rowsType(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> shape = {stage::bufferRows(buffer)};
  llvm::append_range(shape, type.getShape());
  return MemRefType::get(shape, type.getElementType());
}

Value hostRowsView(Value buffer, llvm::DenseMap<Value, Value> &made) {
  if (Value view = made.lookup(buffer))
    return view;
  auto arg = cast<BlockArgument>(buffer);
  auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
  stage::BufferAttr attr = stage::bufferAttrOf(func, arg.getArgNumber());
  // The same bytes, typed whole: one row of rows.
  auto whole = stage::BufferAttr::get(func.getContext(), attr.getKind(), attr.getName(),
                                      attr.getSlot(), attr.getByteOffset(), attr.getByteSize(),
                                      attr.getTensors(), /*rows=*/1);
  NamedAttribute named(StringAttr::get(func.getContext(), stage::kBufferAttrName), whole);
  return hostView(buffer, rowsType(buffer), DictionaryAttr::get(func.getContext(), {named}), made);
}

Value paramsArgument(Operation *op) {
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return Value();
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (stage::BufferAttr attr = stage::bufferAttrOf(func, i))
      if (attr.getKind() == stage::BufferKind::Params)
        return func.getArgument(i);
  return Value();
}

void buildRows(RowMode mode, Value params, int64_t workgroups, KernelBuilder &kb,
               const std::function<void()> &stages,
               const std::function<void(Value count)> &together) {
  Value count = kb.paramIndex(params, stage::kRowCountWord);
  switch (mode) {
  case RowMode::Together:
    together(count);
    break;
  case RowMode::Apart: {
    Value row = gpu::BlockIdOp::create(kb.b, kb.loc, gpu::Dimension::x);
    Value own = gpu::BlockIdOp::create(kb.b, kb.loc, gpu::Dimension::y);
    // Workgroup-uniform: a row past the call's count returns whole.
    kb.ifThen(kb.ult(row, count), [&] {
      kb.setVirtualWorkgroup(own, workgroups);
      kb.setRow(row);
      stages();
      kb.setRow(Value());
      kb.setVirtualWorkgroup(Value(), 0);
    });
    break;
  }
  case RowMode::InOrder:
    kb.forLoop(kb.index(0), count, kb.index(1), [&](Value row) {
      kb.setRow(row);
      stages();
      kb.setRow(Value());
      // The next row reuses the workgroup memory this one read.
      kb.barrier();
    });
    break;
  case RowMode::LastRow: {
    // A call carries at least one row (the runtime's rule).
    Value atLeastOne = kb.select(kb.ult(count, kb.index(1)), kb.index(1), count);
    kb.setRow(kb.sub(atLeastOne, kb.index(1)));
    stages();
    kb.setRow(Value());
    break;
  }
  }
}

} // namespace kiln
