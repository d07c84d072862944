// libFuzzer target (issue 12): arbitrary text parsed as an MLIR module by kiln-opt's
// parser with the kiln and stage dialects (and the upstream ones their IR uses), then
// verified: the dialects' custom syntax, attribute parsers and op verifiers must turn
// any input into diagnostics, never a crash. A context is reused for many inputs and
// replaced every 512 (it interns every type and attribute it sees, so memory would grow
// without bound). Diagnostics are swallowed. Built with KILN_BUILD_FUZZERS and the
// compiler (Clang); scripts/test.sh runs it from test/'s .mlir files.
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <cstdint>
#include <memory>
#include <string>

namespace {

std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registry.insert<kiln::graph::KilnDialect, kiln::stage::StageDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::tensor::TensorDialect,
                  mlir::memref::MemRefDialect>();
  auto context = std::make_unique<mlir::MLIRContext>(registry,
                                                     mlir::MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  context->getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  return context;
}

} // namespace

// MLIR's libraries are not instrumented: their container annotations and LLVM's
// allocators poisoning slabs that uninstrumented code fills give false reports
// (scripts/sanitize-compiler.sh says the same).
extern "C" const char *__asan_default_options() {
  return "detect_leaks=0:detect_container_overflow=0:allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static std::unique_ptr<mlir::MLIRContext> context;
  static unsigned uses = 0;
  if (!context || ++uses % 512 == 0)
    context = makeContext();
  const std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, context.get());
  if (module)
    (void)mlir::verify(*module);
  return 0;
}
