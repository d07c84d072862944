// kiln.devices() and kiln.Plan: a plan file loaded on a device. A plan is verified against
// one device (kiln_plan_load_file), so a Plan keeps one loaded copy per device asked for:
// Plan.load() loads it on its device, a Session on another device loads it there again.
#ifndef KILN_PYTHON_PLAN_H
#define KILN_PYTHON_PLAN_H

#include "kiln/runtime.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace kiln::python {

/// A device as kiln_instance_options_t takes it: an index, a name substring, or neither
/// (the runtime's default: env KILN_DEVICE, then GPUs before CPU devices).
struct DeviceChoice {
  int32_t index = -1;
  std::string name;
  bool operator<(const DeviceChoice &other) const {
    return index != other.index ? index < other.index : name < other.name;
  }
  /// None, an int >= 0 or a str; anything else is INVALID_ARGUMENT.
  static DeviceChoice from(const pybind11::object &device);
};

class Plan {
public:
  static std::shared_ptr<Plan> load(const std::string &path, const pybind11::object &device);
  ~Plan();
  Plan(const Plan &) = delete;
  Plan &operator=(const Plan &) = delete;

  const std::string &path() const { return path_; }
  /// The plan loaded on `device` (loading it there the first time); owned by this Plan.
  kiln_plan_t *on(const DeviceChoice &device);
  /// The copy Plan.load() made.
  kiln_plan_t *primary() const { return primary_; }
  kiln_plan_info_t info() const;
  /// The device of the primary copy.
  kiln_device_info_t device() const;

private:
  explicit Plan(std::string path) : path_(std::move(path)) {}
  struct Loaded {
    kiln_instance_t *instance = nullptr;
    kiln_plan_t *plan = nullptr;
  };
  std::string path_;
  std::map<DeviceChoice, Loaded> loaded_;
  kiln_plan_t *primary_ = nullptr;
  kiln_instance_t *primaryInstance_ = nullptr;
};

void bindPlan(pybind11::module_ &module);

} // namespace kiln::python

#endif // KILN_PYTHON_PLAN_H
