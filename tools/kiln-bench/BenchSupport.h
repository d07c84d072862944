//===- BenchSupport.h - What kiln-bench's modes share ---------------------===//
//
// Error printing, integer flags and the C API's handles, for the throughput
// mode (kiln-bench.cpp) and the kernels mode (KernelsMode.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_BENCH_BENCHSUPPORT_H
#define KILN_TOOLS_KILN_BENCH_BENCHSUPPORT_H

#include "kiln/runtime.h"

#include <string>

namespace kiln::bench {

/// Prints "kiln-bench: error: MESSAGE" and returns false.
bool fail(const std::string &message);

/// `text` as an integer in [minimum, maximum], else an error naming `flag`.
bool parseLong(const std::string &flag, const char *text, long minimum, long maximum,
               long &out);

/// `text` as a positive number, else an error naming `flag`.
bool parsePositive(const std::string &flag, const char *text, double &out);

/// The C API's handles, released in order; check() reports a status once.
struct Handles {
  kiln_instance_t *instance = nullptr;
  kiln_plan_t *plan = nullptr;
  kiln_session_t *session = nullptr;
  Handles() = default;
  Handles(const Handles &) = delete;
  Handles &operator=(const Handles &) = delete;
  ~Handles();
  bool check(kiln_status_t status, const std::string &what);
  /// An instance on `device` (an index, a name substring, or empty: the
  /// runtime's choice, env KILN_DEVICE) and the plan at `planPath` on it.
  bool load(const std::string &device, const std::string &planPath);
};

} // namespace kiln::bench

#endif // KILN_TOOLS_KILN_BENCH_BENCHSUPPORT_H
