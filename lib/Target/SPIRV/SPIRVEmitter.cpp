//===- SPIRVEmitter.cpp - GPU kernels to SPIR-V words ---------------------===//
//
// Each kernel is lowered in a module of its own so that one binary holds one
// entry point and a failure names its kernel. Two local fix-ups prepare the
// upstream conversion: workgroup attributions become workgroup memref.allocs
// (which MemRefToSPIRV turns into Workgroup variables), and known_block_size
// becomes the spirv.entry_point_abi. After conversion, workgroup barriers also
// order storage-buffer memory (UniformMemory), because fused stages and
// multi-pass kernels hand values through storage buffers within a workgroup
// (TargetOptions::storageBarriersWhereNeeded: only in such kernels);
// and a storage buffer the kernel only loads from is decorated NonWritable,
// as a GLSL `readonly` buffer is, so the driver may keep its loads on a
// read-only path.
//
//===----------------------------------------------------------------------===//
#include "kiln/Target/SPIRV/SPIRVEmitter.h"

#include "StorageAccess.h"
#include "kiln/Target/SPIRV/CooperativeMatrixNV.h"

#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRVPass.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRVPass.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRVPass.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"

using namespace mlir;

namespace kiln {

const char *const kDefaultTargetEnv =
    "#spirv.target_env<#spirv.vce<v1.3, [Shader], "
    "[SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>";

namespace {

FailureOr<spirv::TargetEnvAttr> resolveTargetEnv(ModuleOp module,
                                                 const TargetOptions &options) {
  if (auto env = module->getAttrOfType<spirv::TargetEnvAttr>(
          spirv::getTargetEnvAttrName()))
    return env;
  std::string text =
      options.targetEnv.empty() ? kDefaultTargetEnv : options.targetEnv;
  Attribute parsed = parseAttribute(text, module.getContext());
  auto env = llvm::dyn_cast_or_null<spirv::TargetEnvAttr>(parsed);
  if (!env)
    return module.emitError("target env is not a #spirv.target_env: ") << text,
           failure();
  return env;
}

/// Workgroup attributions -> memref.alloc in workgroup memory at entry.
void attributionsToAllocs(gpu::GPUFuncOp func) {
  unsigned count = func.getNumWorkgroupAttributions();
  if (count == 0)
    return;
  Block &entry = func.getBody().front();
  OpBuilder builder(&entry, entry.begin());
  unsigned first = func.getFirstWorkgroupAttributionIndex();
  for (unsigned i = 0; i < count; ++i) {
    BlockArgument arg = entry.getArgument(first + i);
    // Named in SPIR-V terms directly: the storage-class mapping pass does not
    // map #gpu.address_space<workgroup> on an alloc.
    auto type = llvm::cast<MemRefType>(arg.getType());
    auto workgroup = spirv::StorageClassAttr::get(func.getContext(),
                                                  spirv::StorageClass::Workgroup);
    auto alloc = memref::AllocOp::create(builder,
        func.getLoc(), MemRefType::get(type.getShape(), type.getElementType(),
                                       MemRefLayoutAttrInterface(), workgroup));
    arg.replaceAllUsesWith(alloc.getResult());
  }
  for (unsigned i = count; i > 0; --i)
    entry.eraseArgument(first + i - 1);
  func->setAttr(func.getNumWorkgroupAttributionsAttrName(),
                IntegerAttr::get(IntegerType::get(func.getContext(), 64), 0));
}

std::array<int32_t, 3> blockSizeOf(gpu::GPUFuncOp func) {
  std::array<int32_t, 3> size = {1, 1, 1};
  if (auto known = func.getKnownBlockSizeAttr())
    for (auto [i, v] : llvm::enumerate(known.asArrayRef()))
      if (i < 3)
        size[i] = v;
  return size;
}

/// `env` raised for a kernel on cooperative matrices (kCooperativeMatrixAttr):
/// MLIR lowers gpu.subgroup_mma_* to SPV_KHR_cooperative_matrix, under SPIR-V
/// 1.6 only; its f16 workgroup memory needs Float16.
spirv::TargetEnvAttr cooperativeEnv(spirv::TargetEnvAttr env) {
  SmallVector<spirv::Capability> caps(env.getTripleAttr().getCapabilities());
  SmallVector<spirv::Extension> exts(env.getTripleAttr().getExtensions());
  for (spirv::Capability cap :
       {spirv::Capability::CooperativeMatrixKHR, spirv::Capability::Float16,
        spirv::Capability::GroupNonUniform})
    if (!llvm::is_contained(caps, cap))
      caps.push_back(cap);
  if (!llvm::is_contained(exts, spirv::Extension::SPV_KHR_cooperative_matrix))
    exts.push_back(spirv::Extension::SPV_KHR_cooperative_matrix);
  auto triple = spirv::VerCapExtAttr::get(spirv::Version::V_1_6, caps, exts, env.getContext());
  return spirv::TargetEnvAttr::get(triple, env.getResourceLimits(), env.getClientAPI(),
                                   env.getVendorID(), env.getDeviceType(), env.getDeviceID());
}

/// A module holding only `kernel`, ready for the upstream pipeline.
OwningOpRef<ModuleOp> isolateKernel(gpu::GPUModuleOp gpuModule,
                                    gpu::GPUFuncOp kernel,
                                    spirv::TargetEnvAttr env) {
  MLIRContext *ctx = kernel.getContext();
  OpBuilder builder(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(kernel.getLoc());
  (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                     builder.getUnitAttr());
  (*module)->setAttr(spirv::getTargetEnvAttrName(),
                     kernel->hasAttr(kCooperativeMatrixAttr) ? cooperativeEnv(env) : env);
  builder.setInsertionPointToEnd(module->getBody());
  auto copy = gpu::GPUModuleOp::create(builder, gpuModule.getLoc(),
                                               kernel.getName());
  builder.setInsertionPointToStart(copy.getBody());
  auto func = llvm::cast<gpu::GPUFuncOp>(builder.clone(*kernel));
  attributionsToAllocs(func);
  std::array<int32_t, 3> size = blockSizeOf(func);
  func->setAttr(spirv::getEntryPointABIAttrName(),
                spirv::getEntryPointABIAttr(ctx, size));
  return module;
}

LogicalResult runPipeline(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(createMapMemRefStorageClassPass());
  pm.addPass(createConvertMathToSPIRVPass());
  pm.addPass(createConvertGPUToSPIRVPass());
  OpPassManager &spv = pm.nest<spirv::ModuleOp>();
  spv.addPass(spirv::createSPIRVLowerABIAttributesPass());
  spv.addPass(spirv::createSPIRVUpdateVCEPass());
  return pm.run(module);
}

/// Barriers between passes over storage buffers must order them too: every
/// barrier, or (`whereNeeded`) only those of a kernel that hands values
/// between its threads through a storage buffer.
void widenBarriers(spirv::ModuleOp module, bool whereNeeded) {
  if (whereNeeded && !handsValuesThroughStorage(module))
    return;
  module.walk([](spirv::ControlBarrierOp barrier) {
    barrier.setMemorySemantics(spirv::MemorySemantics::AcquireRelease |
                               spirv::MemorySemantics::WorkgroupMemory |
                               spirv::MemorySemantics::UniformMemory);
  });
}

/// spirv-update-vce infers capabilities from ops and types, not from
/// built-in variables: a kernel that reads the subgroup built-ins without a
/// group operation (CooperativeMatMat.cpp's subgroup and lane ids) gets
/// GroupNonUniform here, which Vulkan asks of them.
void requireSubgroupBuiltinCapability(spirv::ModuleOp module) {
  bool subgroupBuiltins = false;
  module.walk([&](spirv::GlobalVariableOp var) {
    if (std::optional<StringRef> name = var.getBuiltIn())
      subgroupBuiltins |= llvm::is_contained(
          {StringRef("SubgroupId"), StringRef("SubgroupLocalInvocationId"),
           StringRef("SubgroupSize"), StringRef("NumSubgroups")},
          *name);
  });
  std::optional<spirv::VerCapExtAttr> triple = module.getVceTriple();
  if (!subgroupBuiltins || !triple ||
      llvm::is_contained(triple->getCapabilities(), spirv::Capability::GroupNonUniform))
    return;
  SmallVector<spirv::Capability> caps(triple->getCapabilities());
  caps.push_back(spirv::Capability::GroupNonUniform);
  SmallVector<spirv::Extension> exts(triple->getExtensions());
  module.setVceTripleAttr(
      spirv::VerCapExtAttr::get(triple->getVersion(), caps, exts, module.getContext()));
}

spirv::ModuleOp findSPIRVModule(ModuleOp module) {
  spirv::ModuleOp found;
  module.walk([&](spirv::ModuleOp m) { found = m; });
  return found;
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>>
lowerKernelToSPIRV(ModuleOp module, StringRef kernel,
                   const TargetOptions &options) {
  FailureOr<spirv::TargetEnvAttr> env = resolveTargetEnv(module, options);
  if (failed(env))
    return failure();
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
    for (auto func : gpuModule.getOps<gpu::GPUFuncOp>())
      if (func.getName() == kernel && func.isKernel()) {
        OwningOpRef<ModuleOp> isolated = isolateKernel(gpuModule, func, *env);
        if (failed(runPipeline(*isolated)))
          return func.emitError("SPIR-V lowering failed for kernel '")
                     << kernel << "'",
                 failure();
        isolated->walk([&](spirv::ModuleOp m) {
          requireSubgroupBuiltinCapability(m);
          widenBarriers(m, options.storageBarriersWhereNeeded);
          if (options.readOnlyBuffers)
            markReadOnlyBuffers(m, [&](unsigned binding) {
              return !options.readOnlyFilter || options.readOnlyFilter(kernel, binding);
            }, options.readOnlyOnMember);
        });
        return isolated;
      }
  return module.emitError("no kernel named '") << kernel << "'", failure();
}

FailureOr<std::vector<KernelBinary>> emitSPIRV(ModuleOp module,
                                               const TargetOptions &options) {
  module.getContext()->loadDialect<spirv::SPIRVDialect>();
  std::vector<KernelBinary> binaries;
  SmallVector<std::pair<gpu::GPUModuleOp, gpu::GPUFuncOp>> kernels;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
    for (auto func : gpuModule.getOps<gpu::GPUFuncOp>())
      if (func.isKernel())
        kernels.push_back({gpuModule, func});
  if (kernels.empty())
    return module.emitError("no gpu.func kernel to emit; run "
                            "--convert-stage-to-gpu first"),
           failure();
  for (auto [gpuModule, func] : kernels) {
    FailureOr<OwningOpRef<ModuleOp>> lowered =
        lowerKernelToSPIRV(module, func.getName(), options);
    if (failed(lowered))
      return failure();
    spirv::ModuleOp spirvModule = findSPIRVModule(**lowered);
    if (!spirvModule)
      return func.emitError("conversion produced no spirv.module"), failure();
    KernelBinary binary;
    binary.name = func.getName().str();
    binary.workgroupSize = blockSizeOf(func);
    binary.bindingCount = func.getNumArguments();
    SmallVector<uint32_t> words;
    if (failed(spirv::serialize(spirvModule, words)))
      return func.emitError("SPIR-V serialization failed"), failure();
    binary.words.assign(words.begin(), words.end());
    if (func->hasAttr(kCooperativeMatrixAttr)) {
      llvm::Expected<std::vector<uint32_t>> nv = cooperativeMatrixKHRToNV(binary.words);
      if (!nv)
        return func.emitError("kernel '")
                   << func.getName() << "': " << llvm::toString(nv.takeError()),
               failure();
      binary.words = std::move(*nv);
    }
    if (auto size = func->getAttrOfType<IntegerAttr>(kRequiredSubgroupSizeAttr))
      binary.requiredSubgroupSize = static_cast<uint32_t>(size.getInt());
    binaries.push_back(std::move(binary));
  }
  return binaries;
}

} // namespace kiln
