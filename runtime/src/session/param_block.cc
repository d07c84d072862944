#include "session/param_block.h"

#include <algorithm>
#include <cstring>

namespace kiln::rt {
namespace kp = kiln::plan;

namespace {

void putU32(uint8_t *at, uint32_t value) { std::memcpy(at, &value, 4); }
void putF32(uint8_t *at, float value) { std::memcpy(at, &value, 4); }

uint32_t tokenOfRow(const CallValues &values, uint32_t row) {
  return row < values.rowCount ? static_cast<uint32_t>(values.tokens[row]) : 0u;
}

} // namespace

void writeParamBlock(const kp::ParamBlock &block, uint8_t *mapped, const CallValues &values) {
  if (!block.fields())
    return;
  for (const kp::ParamField *field : *block.fields()) {
    uint8_t *at = mapped + field->byte_offset();
    const uint32_t p = values.position + field->row();
    switch (field->rule()) {
    case kp::ParamRule::Constant:
      if (field->type() == kp::ParamType::F32)
        putF32(at, field->constant_f32());
      else
        putU32(at, field->constant_u32());
      break;
    case kp::ParamRule::Token:
      putU32(at, tokenOfRow(values, field->row()));
      break;
    case kp::ParamRule::Tokens:
      for (uint32_t row = 0; row < field->n(); ++row)
        putU32(at + 4 * row, tokenOfRow(values, row));
      break;
    case kp::ParamRule::Position:
      putU32(at, p);
      break;
    case kp::ParamRule::PositionModN:
      putU32(at, p % field->n());
      break;
    case kp::ParamRule::MinPositionPlus1N:
      putU32(at, std::min(p + 1, field->n()));
      break;
    case kp::ParamRule::RowCount:
      putU32(at, values.rowCount);
      break;
    case kp::ParamRule::HeadGate:
      putF32(at, values.headGate);
      break;
    case kp::ParamRule::Temperature:
      putF32(at, values.temperature);
      break;
    case kp::ParamRule::TopP:
      putF32(at, values.topP);
      break;
    case kp::ParamRule::RandomU32:
      putU32(at, values.generator ? static_cast<uint32_t>(values.generator->next() >> 32) : 0u);
      break;
    case kp::ParamRule::StopToken:
      putU32(at, values.stopToken);
      break;
    case kp::ParamRule::HeadTopP:
      putF32(at, values.headTopP);
      break;
    }
  }
}

} // namespace kiln::rt
