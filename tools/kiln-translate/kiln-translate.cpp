//===- kiln-translate.cpp - Emit SPIR-V and MSL from stage/gpu modules ----===//
//
// kiln-translate in.mlir --emit=spirv|spirv-dialect|msl [--kernel=NAME] -o out
// A module still holding stage.dispatch ops is first run through
// --convert-stage-to-gpu. `spirv` writes the binary of one kernel (the only
// one, or --kernel); `msl` writes MSL with a header comment giving the
// threadgroup size.
//
//===----------------------------------------------------------------------===//
#include "kiln/Conversion/StageToGPU/StageToGPU.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"
#include "kiln/Target/MSL/MSLEmitter.h"
#include "kiln/Target/SPIRV/SPIRVEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::init("-"),
                                            llvm::cl::desc("<input .mlir>"));
static llvm::cl::opt<std::string> outputFile("o", llvm::cl::init("-"),
                                             llvm::cl::desc("output file"));
static llvm::cl::opt<std::string>
    emit("emit", llvm::cl::init("spirv"),
         llvm::cl::desc("spirv | spirv-dialect | msl"));
static llvm::cl::opt<std::string>
    kernelName("kernel", llvm::cl::init(""),
               llvm::cl::desc("kernel to emit (default: the only one)"));
static llvm::cl::opt<std::string>
    targetEnv("target-env", llvm::cl::init(""),
              llvm::cl::desc("#spirv.target_env used when the module has none"));
static llvm::cl::opt<bool> barriersWhereNeeded(
    "barriers-where-needed", llvm::cl::init(false),
    llvm::cl::desc("workgroup barriers order storage-buffer memory only in a kernel "
                   "that hands values through a storage buffer"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv, "Kiln SPIR-V / MSL emitter\n");
  DialectRegistry registry;
  registry.insert<kiln::stage::StageDialect, func::FuncDialect,
                  arith::ArithDialect, gpu::GPUDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect,
                  spirv::SPIRVDialect, vector::VectorDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string error;
  auto input = openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "kiln-translate: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  bool hasStages = false;
  module->walk([&](kiln::stage::DispatchOp) { hasStages = true; });
  if (hasStages) {
    kiln::StageToGPUOptions options;
    auto env = (*module)->getAttrOfType<spirv::TargetEnvAttr>(
        spirv::getTargetEnvAttrName());
    if (env)
      for (spirv::Capability cap : env.getCapabilities())
        options.subgroupReduce |= cap == spirv::Capability::GroupNonUniformArithmetic;
    if (failed(kiln::convertStagesToGPU(*module, options)))
      return 1;
  }
  kiln::TargetOptions targetOptions;
  targetOptions.targetEnv = targetEnv;
  targetOptions.storageBarriersWhereNeeded = barriersWhereNeeded;

  auto output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "kiln-translate: " << error << "\n";
    return 1;
  }
  if (emit == "spirv-dialect") {
    std::string name = kernelName;
    if (name.empty())
      module->walk([&](gpu::GPUFuncOp f) { name = f.getName().str(); });
    auto lowered = kiln::lowerKernelToSPIRV(*module, name, targetOptions);
    if (failed(lowered))
      return 1;
    (*lowered)->print(output->os());
    output->keep();
    return 0;
  }
  auto binaries = kiln::emitSPIRV(*module, targetOptions);
  if (failed(binaries))
    return 1;
  const kiln::KernelBinary *chosen = nullptr;
  for (const auto &binary : *binaries)
    if (kernelName.empty() ? binaries->size() == 1 : binary.name == kernelName)
      chosen = &binary;
  if (!chosen) {
    llvm::errs() << "kiln-translate: "
                 << (kernelName.empty()
                         ? "the module has several kernels; pick one with --kernel"
                         : "no kernel named '" + kernelName + "'")
                 << "\n";
    return 1;
  }
  if (emit == "spirv") {
    output->os().write(reinterpret_cast<const char *>(chosen->words.data()),
                       chosen->words.size() * sizeof(uint32_t));
  } else if (emit == "msl") {
    kiln::MSLResult msl = kiln::emitMSL(chosen->words);
    if (!msl.ok) {
      llvm::errs() << "kiln-translate: kernel '" << chosen->name
                   << "': " << msl.error << "\n";
      return 1;
    }
    const auto &size = msl.kernel.threadgroupSize;
    output->os() << "// kernel " << msl.kernel.entryPoint << " threadgroup "
                 << size[0] << "x" << size[1] << "x" << size[2] << "\n"
                 << msl.kernel.source;
  } else {
    llvm::errs() << "kiln-translate: unknown --emit '" << emit
                 << "' (spirv, spirv-dialect, msl)\n";
    return 1;
  }
  output->keep();
  return 0;
}
