//===- StageAttrs.h - The stage module's contract attributes ----*- C++ -*-===//
//
// The attribute classes of StageAttrs.td, and the bracketed-list syntax their
// list parameters use (`shape = [256, 72]`, `tensors = [#stage.tensor<...>]`).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_STAGE_IR_STAGEATTRS_H
#define KILN_DIALECT_STAGE_IR_STAGEATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include "kiln/Dialect/Stage/IR/StageEnums.h.inc"

namespace kiln::stage {

/// `[a, b, ...]`, possibly empty: a list that can sit among a struct's
/// comma-separated fields.
template <typename T>
mlir::FailureOr<llvm::SmallVector<T>> parseBracketedList(mlir::AsmParser &parser) {
  llvm::SmallVector<T> items;
  if (failed(parser.parseCommaSeparatedList(
          mlir::AsmParser::Delimiter::Square, [&]() -> mlir::ParseResult {
            mlir::FailureOr<T> item = mlir::FieldParser<T>::parse(parser);
            if (failed(item))
              return mlir::failure();
            items.push_back(*item);
            return mlir::success();
          })))
    return mlir::failure();
  return items;
}

template <typename T>
void printBracketedList(mlir::AsmPrinter &printer, llvm::ArrayRef<T> items) {
  printer << '[';
  llvm::interleaveComma(items, printer);
  printer << ']';
}

} // namespace kiln::stage

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Stage/IR/StageAttrs.h.inc"

#endif // KILN_DIALECT_STAGE_IR_STAGEATTRS_H
