//===- ConvertStageToGPU.cpp - stage.dispatch -> gpu.func + launch --------===//
//
// Each dispatch becomes one kernel. Its bindings are the memrefs its stages
// use, in order of first use; the dispatch is replaced by a gpu.launch_func
// that records the grid and that order for the plan writer.
//
//===----------------------------------------------------------------------===//
#include "DoryFarField.h"
#include "KernelBuilder.h"

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace kiln {

#define GEN_PASS_DEF_CONVERTSTAGETOGPU
#include "kiln/Conversion/Passes.h.inc"

namespace {

FailureOr<KernelShape> shapeOfStage(Operation *op, const StageToGPUOptions &o) {
  return llvm::TypeSwitch<Operation *, FailureOr<KernelShape>>(op)
      .Case<stage::EmbedGatherOp, stage::RMSNormOp, stage::MatVecOp,
            stage::ConvRingOp, stage::GdnStepOp, stage::RopeKvWriteOp,
            stage::AttentionOp, stage::RouterOp, stage::ClusterLogitsOp,
            stage::HeadRowsOp, stage::DoryPrepOp, stage::SlerpOp,
            stage::DoryMixOp>([&](auto stageOp) { return shapeOf(stageOp, o); })
      .Case<stage::SiluMulOp, stage::AddOp, stage::MulOp, stage::SigmoidGateOp>(
          [&](Operation *e) { return shapeOfElementwise(e, o); })
      .Case<stage::WindowAttentionOp, stage::FarFieldPushOp,
            stage::LandmarkCaptureOp, stage::LandmarkSealOp, stage::ExitTestOp>(
          [&](auto stageOp) { return shapeOf(stageOp, o); })
      .Default([](Operation *other) -> FailureOr<KernelShape> {
        return other->emitOpError("has no GPU kernel"), failure();
      });
}

void buildStage(Operation *op, KernelBuilder &kb) {
  llvm::TypeSwitch<Operation *>(op)
      .Case<stage::EmbedGatherOp, stage::RMSNormOp, stage::MatVecOp,
            stage::ConvRingOp, stage::GdnStepOp, stage::RopeKvWriteOp,
            stage::AttentionOp, stage::RouterOp, stage::ClusterLogitsOp,
            stage::HeadRowsOp, stage::DoryPrepOp, stage::SlerpOp,
            stage::DoryMixOp>([&](auto stageOp) { buildKernel(stageOp, kb); })
      .Case<stage::SiluMulOp, stage::AddOp, stage::MulOp, stage::SigmoidGateOp>(
          [&](Operation *e) { buildElementwiseKernel(e, kb); })
      .Case<stage::WindowAttentionOp, stage::FarFieldPushOp,
            stage::LandmarkCaptureOp, stage::LandmarkSealOp, stage::ExitTestOp>(
          [&](auto stageOp) { buildKernel(stageOp, kb); });
}

/// Whether the target named by the module's spirv.target_env can reduce
/// across a subgroup.
bool targetHasSubgroupArithmetic(ModuleOp module) {
  auto env = module->getAttrOfType<spirv::TargetEnvAttr>(
      spirv::getTargetEnvAttrName());
  if (!env)
    return false;
  for (spirv::Capability cap : env.getCapabilities())
    if (cap == spirv::Capability::GroupNonUniformArithmetic)
      return true;
  return false;
}

LogicalResult lowerDispatch(stage::DispatchOp dispatch, StringRef name,
                            gpu::GPUModuleOp gpuModule,
                            const StageToGPUOptions &options) {
  Block &body = dispatch.getBody().front();
  llvm::SetVector<Value> bindings;
  SmallVector<KernelShape> shapes;
  for (Operation &op : body) {
    for (Value operand : op.getOperands()) {
      if (!isa<MemRefType>(operand.getType()))
        return op.emitOpError("operand of type ")
               << operand.getType() << " is not a buffer";
      bindings.insert(operand);
    }
    FailureOr<KernelShape> shape = shapeOfStage(&op, options);
    if (failed(shape))
      return failure();
    shapes.push_back(*shape);
  }
  // Dory's early exit: the skip flag is the kernel's last binding.
  if (Value flag = dispatch.getSkipFlag())
    bindings.insert(flag);
  KernelShape shape = shapes.front();
  for (const KernelShape &other : shapes)
    if (shapes.size() > 1 && other.workgroups != 1 || other.workgroupSize != shape.workgroupSize)
      return dispatch.emitOpError(
          "fused stages must all run in one workgroup of one size");

  OpBuilder builder(gpuModule.getBodyRegion());
  builder.setInsertionPointToEnd(gpuModule.getBody());
  SmallVector<Type> argTypes;
  for (Value v : bindings)
    argTypes.push_back(v.getType());
  Location loc = dispatch.getLoc();
  auto func = builder.create<gpu::GPUFuncOp>(
      loc, name, builder.getFunctionType(argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(
      {static_cast<int32_t>(shape.workgroupSize), 1, 1}));

  IRMapping mapping;
  for (auto [index, v] : llvm::enumerate(bindings))
    mapping.map(v, func.getArgument(index));
  builder.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder kb(builder, loc, func, mapping, shape.workgroupSize,
                   options.subgroupReduce);
  Operation *skipGuard = openSkipGuard(dispatch, kb);
  bool first = true;
  for (Operation &op : body) {
    // Fused single-workgroup stages: the next one may read what this wrote.
    if (!first)
      kb.barrier();
    first = false;
    buildStage(&op, kb);
  }
  if (skipGuard)
    builder.setInsertionPointAfter(skipGuard);
  builder.create<gpu::ReturnOp>(loc);

  OpBuilder host(dispatch);
  auto dim = [&](int64_t v) {
    return host.create<arith::ConstantIndexOp>(loc, v).getResult();
  };
  Value one = dim(1);
  host.create<gpu::LaunchFuncOp>(
      loc, func, gpu::KernelDim3{dim(shape.workgroups), one, one},
      gpu::KernelDim3{dim(shape.workgroupSize), one, one},
      /*dynamicSharedMemorySize=*/Value(), bindings.getArrayRef());
  dispatch.erase();
  return success();
}

} // namespace

LogicalResult convertStagesToGPU(ModuleOp module,
                                 const StageToGPUOptions &options) {
  SmallVector<stage::DispatchOp> dispatches;
  module.walk([&](stage::DispatchOp op) { dispatches.push_back(op); });
  if (dispatches.empty())
    return success();
  // Callers outside a pass manager may not have loaded what kernels use.
  module.getContext()
      ->loadDialect<arith::ArithDialect, gpu::GPUDialect, math::MathDialect,
                    memref::MemRefDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  for (int64_t size : {options.reduceWorkgroupSize, options.headWorkgroupSize})
    if (size < 1 || (size & (size - 1)) != 0)
      return module.emitError("workgroup sizes of reducing kernels must be a "
                              "power of two, got ")
             << size;

  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  auto gpuModule = builder.create<gpu::GPUModuleOp>(module.getLoc(), "kiln_kernels");

  llvm::StringSet<> used;
  int64_t counter = 0;
  for (stage::DispatchOp dispatch : dispatches) {
    std::string name = dispatch.getKernelName()
                           ? dispatch.getKernelName()->str()
                           : "dispatch_" + std::to_string(counter);
    ++counter;
    std::string unique = name;
    for (int suffix = 1; !used.insert(unique).second; ++suffix)
      unique = name + "_" + std::to_string(suffix);
    if (failed(lowerDispatch(dispatch, unique, gpuModule, options)))
      return failure();
  }
  return success();
}

namespace {
struct ConvertStageToGPUPass
    : impl::ConvertStageToGPUBase<ConvertStageToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    StageToGPUOptions options;
    options.rowWorkgroupSize = rowWorkgroupSize;
    options.reduceWorkgroupSize = reduceWorkgroupSize;
    options.headWorkgroupSize = headWorkgroupSize;
    options.subgroupReduce =
        subgroupReduce && targetHasSubgroupArithmetic(getOperation());
    if (failed(convertStagesToGPU(getOperation(), options)))
      signalPassFailure();
  }
};
} // namespace

} // namespace kiln
