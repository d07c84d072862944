//===- TextFile.h - Reading a small input file whole, bounded -*- C++ -*-===//
//
// Configs and target descriptors are small JSON files named by the user; a
// path to a device or a pipe that never ends (/dev/zero) must give an error,
// not a process that reads until memory runs out.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IO_TEXTFILE_H
#define KILN_IO_TEXTFILE_H

#include "kiln/IO/Error.h"

#include <cstddef>
#include <string>

namespace kiln::io {

/// The whole of the file at `path`, or an error naming it: it cannot be
/// opened or read, or it holds more than `maxBytes` (`what` names the kind
/// of file in the message, e.g. "config file").
Expected<std::string> readTextFile(const std::string &path, std::size_t maxBytes,
                                   const std::string &what);

} // namespace kiln::io

#endif // KILN_IO_TEXTFILE_H
