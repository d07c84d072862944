//===- PlanJson.h - A readable JSON dump of a plan --------------*- C++ -*-===//
//
// kiln-compile --emit=plan-json. Written by hand over the generated accessors
// (no flatbuffers reflection): every table field by its schema name, enums by
// their names, SPIR-V and MSL summarised by size so dumps stay diffable.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_PLAN_PLANJSON_H
#define KILN_TARGET_PLAN_PLANJSON_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln {

struct PlanJsonResult {
  bool ok = false;
  std::string json;  ///< Indented JSON text, when ok.
  std::string error; ///< Why the bytes are not a plan, when not ok.
};

/// Verifies the bytes (identifier, FlatBuffers verifier) and dumps them.
PlanJsonResult planToJson(const uint8_t *data, size_t size);

} // namespace kiln

#endif // KILN_TARGET_PLAN_PLANJSON_H
