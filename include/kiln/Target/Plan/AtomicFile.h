//===- AtomicFile.h - Write a whole file or nothing -------------*- C++ -*-===//
//
// Outputs go to a temporary file beside the destination, renamed over it only
// once every byte is written (HOUSE.md habit 17): a failure never leaves a
// half-written plan.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_PLAN_ATOMICFILE_H
#define KILN_TARGET_PLAN_ATOMICFILE_H

#include <cstddef>
#include <string>

namespace kiln {

/// Returns an empty string on success, else a message naming the path and
/// the failing step. The destination is untouched on failure.
std::string writeFileAtomically(const std::string &path, const void *data,
                                size_t size);

} // namespace kiln

#endif // KILN_TARGET_PLAN_ATOMICFILE_H
