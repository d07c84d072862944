//===- kiln-import.cpp - Config JSON -> kiln module -----------------------===//
//
//   kiln-import CONFIG.json [--format=f16|q8_2f] [-o OUT.mlir]
//
// Prints the kiln module of the config (docs/dialect.md). The output file is
// written to a temporary and renamed, so a failure leaves none behind.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/ConfigImporter.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::opt<std::string> configPath(cl::Positional, cl::Required,
                                  cl::desc("<config.json>"));
  cl::opt<std::string> formatName("format", cl::init("f16"),
                                  cl::desc("matrix format: f16 | q8_2f"));
  cl::opt<std::string> outputPath("o", cl::init("-"),
                                  cl::desc("output file (default stdout)"));
  cl::ParseCommandLineOptions(argc, argv, "Kiln config importer\n");

  auto format = kiln::io::parseWeightFormat(formatName);
  if (!format) {
    llvm::errs() << "kiln-import: " << format.error().message() << "\n";
    return 1;
  }
  auto config = kiln::io::loadModelConfig(configPath);
  if (!config) {
    llvm::errs() << "kiln-import: " << config.error().message() << "\n";
    return 1;
  }
  mlir::MLIRContext context;
  std::string error;
  auto module = kiln::importModelConfig(context, *config, *format, &error);
  if (!module) {
    llvm::errs() << "kiln-import: " << error << "\n";
    return 1;
  }
  std::string text;
  llvm::raw_string_ostream stream(text);
  module->print(stream);
  stream << "\n";
  if (outputPath == "-") {
    llvm::outs() << text;
    return 0;
  }
  // Temporary + rename: a failure leaves no half-written file.
  std::string temporary = outputPath + ".tmp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream file(temporary, ec);
    if (ec) {
      llvm::errs() << "kiln-import: cannot write " << temporary << ": "
                   << ec.message() << "\n";
      return 1;
    }
    file << text;
    file.close();
    if (file.has_error()) {
      file.clear_error();
      llvm::sys::fs::remove(temporary);
      llvm::errs() << "kiln-import: writing " << temporary << " failed\n";
      return 1;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, outputPath)) {
    llvm::sys::fs::remove(temporary);
    llvm::errs() << "kiln-import: cannot rename to " << outputPath << ": "
                 << ec.message() << "\n";
    return 1;
  }
  return 0;
}
