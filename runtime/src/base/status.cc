#include "base/status.h"

#include <new>

struct kiln_status_s {
  kiln_status_code_t code;
  std::string message;
};

// Handed out when even the status cannot be allocated; never freed.
static kiln_status_s gOutOfMemoryStatus{KILN_STATUS_RESOURCE_EXHAUSTED,
                                        "out of host memory while reporting an error"};

namespace kiln::rt {

Status::Status(kiln_status_code_t code, std::string message) {
  if (code != KILN_STATUS_OK)
    failure_ = std::make_shared<const Failure>(Failure{code, std::move(message)});
}

kiln_status_code_t Status::code() const {
  return failure_ ? failure_->code : KILN_STATUS_OK;
}

const std::string &Status::message() const {
  static const std::string empty;
  return failure_ ? failure_->message : empty;
}

Status Status::withContext(const std::string &context) const {
  if (ok())
    return *this;
  return Status(failure_->code, context + ": " + failure_->message);
}

Status invalidArgument(std::string m) { return Status(KILN_STATUS_INVALID_ARGUMENT, std::move(m)); }
Status notFound(std::string m) { return Status(KILN_STATUS_NOT_FOUND, std::move(m)); }
Status outOfRange(std::string m) { return Status(KILN_STATUS_OUT_OF_RANGE, std::move(m)); }
Status resourceExhausted(std::string m) { return Status(KILN_STATUS_RESOURCE_EXHAUSTED, std::move(m)); }
Status failedPrecondition(std::string m) { return Status(KILN_STATUS_FAILED_PRECONDITION, std::move(m)); }
Status unavailable(std::string m) { return Status(KILN_STATUS_UNAVAILABLE, std::move(m)); }
Status internalError(std::string m) { return Status(KILN_STATUS_INTERNAL, std::move(m)); }

kiln_status_t toCStatus(const Status &status) {
  if (status.ok())
    return nullptr;
  // nothrow: an allocation failure while reporting an error must not throw across C.
  auto *out = new (std::nothrow) kiln_status_s;
  if (!out)
    return &gOutOfMemoryStatus;
  out->code = status.code();
  out->message = status.message();
  return out;
}

} // namespace kiln::rt

extern "C" {

kiln_status_code_t kiln_status_code(kiln_status_t status) {
  return status ? status->code : KILN_STATUS_OK;
}

const char *kiln_status_message(kiln_status_t status) {
  return status ? status->message.c_str() : "";
}

const char *kiln_status_code_name(kiln_status_code_t code) {
  switch (code) {
  case KILN_STATUS_OK: return "OK";
  case KILN_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
  case KILN_STATUS_NOT_FOUND: return "NOT_FOUND";
  case KILN_STATUS_OUT_OF_RANGE: return "OUT_OF_RANGE";
  case KILN_STATUS_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
  case KILN_STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
  case KILN_STATUS_UNAVAILABLE: return "UNAVAILABLE";
  case KILN_STATUS_INTERNAL: return "INTERNAL";
  }
  return "UNKNOWN";
}

void kiln_status_free(kiln_status_t status) {
  if (!status || status == &gOutOfMemoryStatus)
    return;
  delete status;
}

} // extern "C"
