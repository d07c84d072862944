// Failures of the C API as C++ exceptions inside the binding, raised in Python as
// kiln.Error (python/kiln/_errors.py) with the status code and message.
#ifndef KILN_PYTHON_STATUS_ERROR_H
#define KILN_PYTHON_STATUS_ERROR_H

#include "kiln/runtime.h"

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

namespace kiln::python {

class StatusError : public std::runtime_error {
public:
  StatusError(kiln_status_code_t code, const std::string &message)
      : std::runtime_error(message), code_(code) {}
  kiln_status_code_t code() const { return code_; }

private:
  kiln_status_code_t code_;
};

/// Throws StatusError for a failed status (and frees it); returns for NULL (OK).
void check(kiln_status_t status);

/// Turns StatusError into kiln.Error from now on (the class is read from kiln._errors).
void registerStatusError(pybind11::module_ &module);

} // namespace kiln::python

#endif // KILN_PYTHON_STATUS_ERROR_H
