//===- BenchSupport.cpp - What kiln-bench's modes share -------------------===//
#include "BenchSupport.h"

#include <cstdio>
#include <cstdlib>

namespace kiln::bench {

bool fail(const std::string &message) {
  std::fprintf(stderr, "kiln-bench: error: %s\n", message.c_str());
  return false;
}

bool parseLong(const std::string &flag, const char *text, long minimum, long maximum,
               long &out) {
  char *end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (end == text || *end || value < minimum || value > maximum)
    return fail(flag + ": '" + text + "' is not an integer in [" + std::to_string(minimum) +
                ", " + std::to_string(maximum) + "]");
  out = value;
  return true;
}

bool parsePositive(const std::string &flag, const char *text, double &out) {
  char *end = nullptr;
  out = std::strtod(text, &end);
  if (end == text || *end || !(out > 0))
    return fail(flag + ": '" + std::string(text) + "' is not a positive number");
  return true;
}

Handles::~Handles() {
  kiln_session_release(session);
  kiln_plan_release(plan);
  kiln_instance_release(instance);
}

bool Handles::check(kiln_status_t status, const std::string &what) {
  if (!status)
    return true;
  fail(what + ": " + kiln_status_code_name(kiln_status_code(status)) + ": " +
       kiln_status_message(status));
  kiln_status_free(status);
  return false;
}

bool Handles::load(const std::string &device, const std::string &planPath) {
  kiln_instance_options_t options;
  kiln_instance_options_init(&options);
  if (!device.empty()) {
    char *end = nullptr;
    long index = std::strtol(device.c_str(), &end, 10);
    if (*end)
      options.device_name = device.c_str();
    else
      options.device_index = static_cast<int32_t>(index);
  }
  return check(kiln_instance_create(&options, &instance), "device") &&
         check(kiln_plan_load_file(instance, planPath.c_str(), &plan), "plan '" + planPath + "'");
}

} // namespace kiln::bench
