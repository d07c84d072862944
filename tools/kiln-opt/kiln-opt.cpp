//===- kiln-opt.cpp - Kiln's opt driver -----------------------------------===//
//
// Registers the dialects Kiln's IR uses and Kiln's passes, then hands over to
// MlirOptMain so every standard mlir-opt flag works.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"
#include "kiln/Dialect/Stage/Transforms/Passes.h"
#include "kiln/Pipeline/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<kiln::graph::KilnDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::tensor::TensorDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                  mlir::gpu::GPUDialect, mlir::spirv::SPIRVDialect,
                  mlir::vector::VectorDialect>();
  registry.insert<kiln::stage::StageDialect, mlir::math::MathDialect>();
  // The conversions, and the whole compile pipeline as `kiln-pipeline`.
  kiln::registerKilnPipeline();
  kiln::stage::registerKilnStagePasses();
  mlir::registerTransformsPasses(); // canonicalize, cse, ...
  kiln::graph::registerKilnPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
