//===- Prefetch.h - stage.prefetch on a dispatch's extra workgroups -*- C++ -*-===//
//
// A prefetch runs on workgroups appended after its dispatch's own grid
// (ConvertStageToGPU.cpp); these two give their count and their body.
// Internal to lib/Conversion/StageToGPU.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CONVERSION_STAGETOGPU_PREFETCH_H
#define KILN_LIB_CONVERSION_STAGETOGPU_PREFETCH_H

#include "KernelBuilder.h"

namespace kiln {

/// 16-byte groups a prefetching thread loads, all in flight together.
constexpr int64_t kPrefetchGroupsPerThread = 8;

/// Workgroups of `workgroupSize` threads that read `op`'s groups.
int64_t prefetchWorkgroups(stage::PrefetchOp op, int64_t workgroupSize);

/// `op`'s loads for its workgroup `workgroup` (0-based within its range).
void buildPrefetch(stage::PrefetchOp op, mlir::Value workgroup, KernelBuilder &kb);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_STAGETOGPU_PREFETCH_H
