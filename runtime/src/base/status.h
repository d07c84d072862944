// Status: the runtime's internal error value. A default Status is OK and costs nothing;
// a failure carries a code from kiln_status_code_t and a message. Each layer adds
// context with withContext() as the error rises; the C API turns it into kiln_status_t.
#ifndef KILN_RUNTIME_BASE_STATUS_H
#define KILN_RUNTIME_BASE_STATUS_H

#include "kiln/runtime.h"

#include <memory>
#include <string>

namespace kiln::rt {

class [[nodiscard]] Status {
public:
  Status() = default;
  Status(kiln_status_code_t code, std::string message);

  bool ok() const { return !failure_; }
  explicit operator bool() const { return ok(); }
  kiln_status_code_t code() const;
  const std::string &message() const;

  /// Returns this status with "context: " in front of the message (OK stays OK).
  Status withContext(const std::string &context) const;

private:
  struct Failure {
    kiln_status_code_t code;
    std::string message;
  };
  std::shared_ptr<const Failure> failure_;
};

inline Status okStatus() { return Status(); }
Status invalidArgument(std::string message);
Status notFound(std::string message);
Status outOfRange(std::string message);
Status resourceExhausted(std::string message);
Status failedPrecondition(std::string message);
Status unavailable(std::string message);
Status internalError(std::string message);

/// Hands a Status to C: null for OK, else a heap kiln_status_t the caller frees.
kiln_status_t toCStatus(const Status &status);

} // namespace kiln::rt

// Returns from the enclosing function when `expr` (a Status) fails.
#define KILN_RETURN_IF_ERROR(expr)                                                     \
  do {                                                                                 \
    ::kiln::rt::Status kiln_status_tmp_ = (expr);                                      \
    if (!kiln_status_tmp_.ok())                                                        \
      return kiln_status_tmp_;                                                         \
  } while (0)

#endif // KILN_RUNTIME_BASE_STATUS_H
