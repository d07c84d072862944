//===- ExpectedRead.h - Early return on a failed Expected (private) -------===//
//
// The model loaders read dozens of tensors; each read either yields its value
// or returns its error to the loader's caller unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_REFERENCE_EXPECTEDREAD_H
#define KILN_LIB_REFERENCE_EXPECTEDREAD_H

#include <utility>

#define KILN_REF_READ(target, expr)                                            \
  do {                                                                         \
    auto kilnRead = (expr);                                                    \
    if (!kilnRead)                                                             \
      return kilnRead.error();                                                 \
    target = std::move(*kilnRead);                                             \
  } while (false)

#endif // KILN_LIB_REFERENCE_EXPECTEDREAD_H
