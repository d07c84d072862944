//===- BarrierPlanner.cpp - Barriers from read/write sets -----------------===//
#include "kiln/Target/Plan/BarrierPlanner.h"

namespace kiln {
namespace {

bool overlaps(const BufferAccess &a, const BufferAccess &b) {
  return a.buffer == b.buffer && a.offset < b.offset + b.size &&
         b.offset < a.offset + a.size;
}

bool touchesAny(const BufferAccess &access,
                const std::vector<BufferAccess> &ranges) {
  for (const BufferAccess &range : ranges)
    if (overlaps(access, range))
      return true;
  return false;
}

} // namespace

std::vector<bool> planBarriers(const std::vector<DispatchAccesses> &dispatches) {
  std::vector<bool> barriers(dispatches.size(), false);
  // What the dispatches since the last barrier wrote and read.
  std::vector<BufferAccess> written, read;
  for (size_t i = 0; i < dispatches.size(); ++i) {
    bool needed = false;
    for (const BufferAccess &access : dispatches[i]) {
      // RAW and WAW: anything this touches that an earlier one wrote.
      if ((access.reads || access.writes) && touchesAny(access, written))
        needed = true;
      // WAR: this writes what an earlier one still reads.
      if (access.writes && touchesAny(access, read))
        needed = true;
    }
    if (needed) {
      barriers[i] = true;
      written.clear();
      read.clear();
    }
    for (const BufferAccess &access : dispatches[i]) {
      if (access.writes)
        written.push_back(access);
      if (access.reads)
        read.push_back(access);
    }
  }
  return barriers;
}

} // namespace kiln
