//===- Error.h - Errors as values for Kiln's IO library --------*- C++ -*-===//
//
// Library code never throws across its edge and never exits: every call that
// can fail returns an Expected<T> (a value or an Error) or a Status. The
// message names the problem; callers add context as the error rises
// ("weights: " + ...), and only a tool's main() prints it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IO_ERROR_H
#define KILN_IO_ERROR_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace kiln::io {

/// A failure described by a human-readable message.
class Error {
public:
  Error() = default;
  explicit Error(std::string message) : message_(std::move(message)) {}

  const std::string &message() const { return message_; }

  /// Returns a copy whose message is `prefix + message` (e.g. "config: ").
  Error withPrefix(const std::string &prefix) const {
    return Error(prefix + message_);
  }

private:
  std::string message_;
};

/// Either a T or an Error. Test with `if (result)`; read with value()/error().
template <class T> class [[nodiscard]] Expected {
public:
  Expected(T value) : value_(std::move(value)) {}
  Expected(Error error) : error_(std::move(error)) {}

  explicit operator bool() const { return value_.has_value(); }
  bool hasValue() const { return value_.has_value(); }

  T &value() & {
    assert(value_ && "Expected::value() on an error");
    return *value_;
  }
  const T &value() const & {
    assert(value_ && "Expected::value() on an error");
    return *value_;
  }
  T &&value() && {
    assert(value_ && "Expected::value() on an error");
    return std::move(*value_);
  }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }
  T &operator*() { return value(); }
  const T &operator*() const { return value(); }

  const Error &error() const {
    assert(!value_ && "Expected::error() on a value");
    return error_;
  }

private:
  std::optional<T> value_;
  Error error_;
};

/// Success or an Error (Expected<void>).
template <> class [[nodiscard]] Expected<void> {
public:
  Expected() = default;
  Expected(Error error) : failed_(true), error_(std::move(error)) {}

  static Expected success() { return Expected(); }

  explicit operator bool() const { return !failed_; }
  bool ok() const { return !failed_; }

  const Error &error() const {
    assert(failed_ && "Status::error() on success");
    return error_;
  }

private:
  bool failed_ = false;
  Error error_;
};

using Status = Expected<void>;

} // namespace kiln::io

#endif // KILN_IO_ERROR_H
