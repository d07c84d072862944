//===- Partition.cpp - Dynamic programming over dispatch boundaries -------===//

#include "kiln/Cost/Partition.h"

#include <limits>

namespace kiln::cost {

Partition choosePartition(size_t n, const std::function<bool(size_t, size_t)> &legal,
                          const std::function<double(size_t, size_t)> &cost) {
  const double inf = std::numeric_limits<double>::infinity();
  // best[j]: least time for stages [0, j); groups[j]: group count, for ties.
  std::vector<double> best(n + 1, inf);
  std::vector<size_t> groups(n + 1, 0), from(n + 1, 0);
  best[0] = 0;
  for (size_t j = 1; j <= n; ++j) {
    for (size_t i = j; i-- > 0;) {
      if (best[i] == inf || (j - i > 1 && !legal(i, j)))
        continue;
      double t = best[i] + cost(i, j);
      size_t g = groups[i] + 1;
      if (t < best[j] || (t == best[j] && g < groups[j])) {
        best[j] = t;
        groups[j] = g;
        from[j] = i;
      }
    }
  }
  Partition p;
  p.totalMicros = n ? best[n] : 0;
  for (size_t j = n; j > 0; j = from[j])
    p.starts.insert(p.starts.begin(), from[j]);
  return p;
}

} // namespace kiln::cost
