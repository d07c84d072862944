//===- Partition.h - Optimal grouping of a stage sequence -------*- C++ -*-===//
//
// Fusion chooses where dispatch boundaries go in the stage order. With a
// legality predicate ("may stages [i, j) share one dispatch?") and a cost per
// candidate group, dynamic programming over the boundaries finds the partition
// of least total estimated time: best[j] = min_i best[i] + cost(i, j).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COST_PARTITION_H
#define KILN_COST_PARTITION_H

#include <cstddef>
#include <functional>
#include <vector>

namespace kiln::cost {

struct Partition {
  /// Group start indices, ascending; group g is [starts[g], starts[g+1]).
  std::vector<size_t> starts;
  double totalMicros = 0;
};

/// `legal(i, j)`: stages [i, j) may form one dispatch (j > i; single stages
/// are always legal). `cost(i, j)`: estimated time of that dispatch.
/// Returns the least-cost partition; ties go to fewer groups.
Partition choosePartition(size_t numStages,
                          const std::function<bool(size_t, size_t)> &legal,
                          const std::function<double(size_t, size_t)> &cost);

} // namespace kiln::cost

#endif // KILN_COST_PARTITION_H
