#include "plan.h"

#include "status_error.h"

#include <pybind11/stl.h>

#include <vector>

namespace py = pybind11;

namespace kiln::python {
namespace {

const char *typeName(kiln_device_type_t type) {
  switch (type) {
  case KILN_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
  case KILN_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
  case KILN_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
  case KILN_DEVICE_TYPE_CPU: return "CPU";
  default: return "other";
  }
}

std::vector<kiln_device_info_t> devices() {
  size_t count = 0;
  check(kiln_enumerate_devices(nullptr, 0, &count));
  std::vector<kiln_device_info_t> all(count);
  check(kiln_enumerate_devices(all.data(), all.size(), &count));
  all.resize(count);
  return all;
}

std::string describeDevice(const kiln_device_info_t &device) {
  return "kiln.Device(" + std::to_string(device.index) + ", '" + device.name + "', " +
         typeName(device.type) + ")";
}

} // namespace

DeviceChoice DeviceChoice::from(const py::object &device) {
  DeviceChoice choice;
  if (device.is_none())
    return choice;
  if (py::isinstance<py::str>(device)) {
    choice.name = device.cast<std::string>();
    return choice;
  }
  if (py::isinstance<py::int_>(device) && !py::isinstance<py::bool_>(device)) {
    long long index = device.cast<long long>();
    if (index >= 0 && index <= INT32_MAX) {
      choice.index = static_cast<int32_t>(index);
      return choice;
    }
  }
  throw StatusError(KILN_STATUS_INVALID_ARGUMENT,
                    "device: " + py::repr(device).cast<std::string>() +
                        " is not a device index (int >= 0), a name substring (str) or None");
}

std::shared_ptr<Plan> Plan::load(const std::string &path, const py::object &device) {
  std::shared_ptr<Plan> plan(new Plan(path));
  DeviceChoice choice = DeviceChoice::from(device);
  plan->primary_ = plan->on(choice);
  plan->primaryInstance_ = plan->loaded_[choice].instance;
  return plan;
}

Plan::~Plan() {
  for (auto &entry : loaded_) {
    kiln_plan_release(entry.second.plan);
    kiln_instance_release(entry.second.instance);
  }
}

kiln_plan_t *Plan::on(const DeviceChoice &device) {
  auto found = loaded_.find(device);
  if (found != loaded_.end())
    return found->second.plan;
  Loaded loaded;
  kiln_instance_options_t options;
  kiln_instance_options_init(&options);
  options.device_index = device.index;
  options.device_name = device.name.empty() ? nullptr : device.name.c_str();
  {
    py::gil_scoped_release unlocked;
    check(kiln_instance_create(&options, &loaded.instance));
    if (kiln_status_t status = kiln_plan_load_file(loaded.instance, path_.c_str(), &loaded.plan)) {
      kiln_instance_release(loaded.instance);
      check(status);
    }
  }
  loaded_[device] = loaded;
  return loaded.plan;
}

kiln_plan_info_t Plan::info() const {
  kiln_plan_info_t info{};
  check(kiln_plan_info(primary_, &info));
  return info;
}

kiln_device_info_t Plan::device() const {
  kiln_device_info_t info{};
  check(kiln_instance_device_info(primaryInstance_, &info));
  return info;
}

void bindPlan(py::module_ &module) {
  py::class_<kiln_device_info_t>(module, "Device", "A Vulkan device (kiln.devices()).")
      .def_readonly("index", &kiln_device_info_t::index)
      .def_property_readonly("name", [](const kiln_device_info_t &d) { return std::string(d.name); })
      .def_property_readonly("type", [](const kiln_device_info_t &d) { return typeName(d.type); })
      .def_readonly("vendor_id", &kiln_device_info_t::vendor_id)
      .def_property_readonly("api_version",
                             [](const kiln_device_info_t &d) {
                               // VK_MAKE_API_VERSION: variant 3 bits, major 7, minor 10, patch 12.
                               return std::to_string((d.api_version >> 22) & 0x7f) + "." +
                                      std::to_string((d.api_version >> 12) & 0x3ff) + "." +
                                      std::to_string(d.api_version & 0xfff);
                             })
      .def_readonly("subgroup_size", &kiln_device_info_t::subgroup_size)
      .def_readonly("max_workgroup_invocations", &kiln_device_info_t::max_workgroup_invocations)
      .def_readonly("device_local_bytes", &kiln_device_info_t::device_local_bytes)
      .def_property_readonly(
          "conditional_rendering",
          [](const kiln_device_info_t &d) { return d.conditional_rendering != 0; })
      .def("__repr__", &describeDevice);

  module.def("devices", &devices, "The Vulkan devices, in the runtime's enumeration order.");

  py::class_<Plan, std::shared_ptr<Plan>>(module, "Plan",
                                          "A compiled plan (.kplan) verified on a device.")
      .def_static("load", &Plan::load, py::arg("path"), py::arg("device") = py::none(),
                  "Loads and verifies the plan at `path` on `device` (an index, a name "
                  "substring, or None for the runtime's default choice).")
      .def_property_readonly("path", &Plan::path)
      .def_property_readonly("device", &Plan::device)
      .def_property_readonly("model_family",
                             [](const Plan &p) { return std::string(p.info().model_family); })
      .def_property_readonly("vocab_size", [](const Plan &p) { return p.info().vocab_size; })
      .def_property_readonly("max_position", [](const Plan &p) { return p.info().max_position; })
      .def_property_readonly("kernel_count", [](const Plan &p) { return p.info().kernel_count; })
      .def_property_readonly("weight_count", [](const Plan &p) { return p.info().weight_count; })
      .def_property_readonly("prefill_max_rows",
                             [](const Plan &p) { return p.info().prefill_max_rows; })
      .def("__repr__", [](const Plan &p) {
        return "kiln.Plan('" + p.path() + "', " + p.info().model_family + ", vocab " +
               std::to_string(p.info().vocab_size) + ")";
      });
}

} // namespace kiln::python
