// _kiln: the compiled half of the Python package `kiln` (python/kiln/__init__.py is its
// public face), a thin layer over the C API (runtime/include/kiln/runtime.h).
#include "plan.h"
#include "session.h"
#include "status_error.h"

#include <pybind11/pybind11.h>

PYBIND11_MODULE(_kiln, module) {
  module.doc() = "Kiln runtime binding (use the package `kiln`)";
  kiln::python::registerStatusError(module);
  kiln::python::bindPlan(module);
  kiln::python::bindSession(module);
}
