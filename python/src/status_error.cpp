#include "status_error.h"

namespace py = pybind11;

namespace kiln::python {

void check(kiln_status_t status) {
  if (!status)
    return;
  kiln_status_code_t code = kiln_status_code(status);
  std::string message = kiln_status_message(status);
  kiln_status_free(status);
  throw StatusError(code, message);
}

void registerStatusError(py::module_ &) {
  // Held for the life of the process: the translator may run until the interpreter ends,
  // and a py::object destroyed after it would touch a finalised interpreter.
  static PyObject *errorType =
      py::object(py::module_::import("kiln._errors").attr("Error")).release().ptr();
  py::register_exception_translator([](std::exception_ptr pending) {
    try {
      if (pending)
        std::rethrow_exception(pending);
    } catch (const StatusError &error) {
      py::object raised = py::reinterpret_borrow<py::object>(errorType)(
          static_cast<int>(error.code()), error.what());
      PyErr_SetObject(errorType, raised.ptr());
    }
  });
}

} // namespace kiln::python
