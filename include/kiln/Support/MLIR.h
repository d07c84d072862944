//===- MLIR.h - The MLIR and LLVM names Kiln's dialects use unqualified ---===//
//
// Kiln's code lives under one namespace root, ::kiln (the kiln dialect in
// ::kiln::graph, the stage dialect in ::kiln::stage). Hand-written parts of
// the dialects (extraClassDeclaration, custom builders, helpers) name MLIR's
// core types unqualified, as code inside ::mlir would; these declarations
// bring exactly those names into ::kiln (CIRCT's circt/Support/LLVM.h does
// the same for ::circt).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_MLIR_H
#define KILN_SUPPORT_MLIR_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Support/LLVM.h"

namespace kiln {
using mlir::ArrayRef;
using mlir::AsmParser;
using mlir::AsmPrinter;
using mlir::Attribute;
using mlir::Block;
using mlir::DialectAsmParser;
using mlir::DialectAsmPrinter;
using mlir::failed;
using mlir::failure;
using mlir::FailureOr;
using mlir::Location;
using mlir::LogicalResult;
using mlir::MLIRContext;
using mlir::OpAsmParser;
using mlir::OpAsmPrinter;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::OperationState;
using mlir::ParseResult;
using mlir::RankedTensorType;
using mlir::Region;
using mlir::SmallVector;
using mlir::SmallVectorImpl;
using mlir::StringRef;
using mlir::succeeded;
using mlir::success;
using mlir::Type;
using mlir::TypeRange;
using mlir::Value;
using mlir::ValueRange;
namespace SideEffects = mlir::SideEffects;
} // namespace kiln

#endif // KILN_SUPPORT_MLIR_H
