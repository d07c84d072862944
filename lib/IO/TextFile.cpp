//===- TextFile.cpp - Reading a small input file whole, bounded ------------===//
#include "kiln/IO/TextFile.h"

#include <fstream>

namespace kiln::io {

Expected<std::string> readTextFile(const std::string &path, std::size_t maxBytes,
                                   const std::string &what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Error(path + ": cannot open " + what);
  std::string text;
  char chunk[1 << 16];
  // Read in chunks up to one byte past the limit, so an endless stream stops.
  while (in && text.size() <= maxBytes) {
    in.read(chunk, sizeof(chunk));
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad())
    return Error(path + ": cannot read " + what);
  if (text.size() > maxBytes)
    return Error(path + ": " + what + " is larger than " + std::to_string(maxBytes) +
                 " bytes (is it the right file?)");
  return text;
}

} // namespace kiln::io
