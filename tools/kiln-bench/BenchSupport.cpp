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

} // namespace kiln::bench
