// The per-token parameter block: what the host writes into the mapped Params buffer
// before each submission, following each field's rule (docs/plan.md). Tens of bytes;
// nothing is re-recorded.
#ifndef KILN_RUNTIME_SESSION_PARAM_BLOCK_H
#define KILN_RUNTIME_SESSION_PARAM_BLOCK_H

#include "session/sampler.h"

#include "kiln/schemas/plan_generated.h"

#include <cstdint>

namespace kiln::rt {

/// The StopToken field's value when no stop token is asked for (no token has it).
constexpr uint32_t kNoStopToken = 0xffffffffu;

struct CallValues {
  const int32_t *tokens = nullptr; // rowCount tokens
  uint32_t rowCount = 0;
  uint32_t position = 0;           // position of row 0
  float headGate = 0;
  float headTopP = 1;
  float temperature = 0;
  float topP = 1;
  SplitMix64 *generator = nullptr; // for RandomU32 fields
  uint32_t stopToken = kNoStopToken; // for StopToken fields
};

/// Writes every field of `block` into `mapped` (the Params buffer's host pointer).
void writeParamBlock(const kiln::plan::ParamBlock &block, uint8_t *mapped,
                     const CallValues &values);

} // namespace kiln::rt

#endif // KILN_RUNTIME_SESSION_PARAM_BLOCK_H
