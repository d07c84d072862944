//===- BarrierPlanner.h - Where a program needs barriers --------*- C++ -*-===//
//
// Plain data in, flags out, so the rule is unit-testable without IR. A
// dispatch gets a barrier when it reads or writes bytes written by a dispatch
// since the last barrier (RAW, WAW), or writes bytes read since then (WAR).
// Ranges are compared byte-exactly within a physical buffer, so two logical
// buffers sharing a slot (liveness) are handled like one buffer.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_PLAN_BARRIERPLANNER_H
#define KILN_TARGET_PLAN_BARRIERPLANNER_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln {

struct BufferAccess {
  uint32_t buffer = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  bool reads = false;
  bool writes = false;
};

/// One entry per dispatch, in order: its accesses.
using DispatchAccesses = std::vector<BufferAccess>;

/// barrier_before of each dispatch. The first dispatch gets none: the runtime
/// records a barrier after the device-flag fills, and submissions are
/// ordered by fences.
std::vector<bool> planBarriers(const std::vector<DispatchAccesses> &dispatches);

} // namespace kiln

#endif // KILN_TARGET_PLAN_BARRIERPLANNER_H
