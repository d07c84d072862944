#include "plan/spirv_bindings.h"

#include <map>

namespace kiln::rt {
namespace {

// SPIR-V opcodes, decorations and storage classes (the unified spec's numbers).
enum : uint32_t {
  kOpTypeInt = 21, kOpTypeFloat = 22, kOpTypeVector = 23, kOpTypeArray = 28,
  kOpTypeRuntimeArray = 29, kOpTypeStruct = 30, kOpTypePointer = 32, kOpConstant = 43,
  kOpVariable = 59, kOpDecorate = 71, kOpMemberDecorate = 72,
};
enum : uint32_t { kArrayStride = 6, kBufferBlock = 3, kBinding = 33, kDescriptorSet = 34, kOffset = 35 };
enum : uint32_t { kUniform = 2, kWorkgroup = 4, kStorageBuffer = 12 };

struct Module {
  std::map<uint32_t, std::vector<uint32_t>> types;   // id -> opcode, operands after the id
  std::map<uint32_t, uint64_t> constants;            // id -> low word of an OpConstant
  std::map<uint32_t, uint32_t> strides, sets, bindings;
  std::map<uint32_t, bool> bufferBlock;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> offsets;
  struct Variable { uint32_t id, pointerType, storageClass; };
  std::vector<Variable> variables;
};

// a * b and a + b, held at UINT64_MAX: a module's sizes are untrusted.
uint64_t saturatingMul(uint64_t a, uint64_t b) {
  return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
uint64_t saturatingAdd(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

// Bytes a type spans (`unbounded` set for a runtime array); depth-limited.
uint64_t sizeOf(const Module &m, uint32_t type, bool &unbounded, int depth = 0) {
  auto it = m.types.find(type);
  if (depth > 16 || it == m.types.end() || it->second.empty())
    return 0;
  const std::vector<uint32_t> &t = it->second;
  auto stride = [&](uint64_t fallback) {
    auto s = m.strides.find(type);
    return s != m.strides.end() ? uint64_t(s->second) : fallback;
  };
  switch (t[0]) {
  case kOpTypeInt:
  case kOpTypeFloat:
    return t.size() > 1 ? t[1] / 8 : 0;
  case kOpTypeVector:
    return t.size() > 2 ? saturatingMul(t[2], sizeOf(m, t[1], unbounded, depth + 1)) : 0;
  case kOpTypeArray: {
    if (t.size() < 3)
      return 0;
    auto length = m.constants.find(t[2]);
    uint64_t n = length != m.constants.end() ? length->second : 0;
    return saturatingMul(n, stride(sizeOf(m, t[1], unbounded, depth + 1)));
  }
  case kOpTypeRuntimeArray:
    unbounded = true;
    return 0;
  case kOpTypeStruct: {
    uint64_t end = 0;
    for (uint32_t member = 0; member + 1 < t.size(); ++member) {
      auto offset = m.offsets.find({type, member});
      uint64_t at = offset != m.offsets.end() ? offset->second : 0;
      end = std::max(end, saturatingAdd(at, sizeOf(m, t[member + 1], unbounded, depth + 1)));
    }
    return end;
  }
  default:
    return 0;
  }
}

// The types, constants, decorations and variables of a module, read without judging it.
Module parse(const uint32_t *words, size_t count) {
  Module m;
  for (size_t at = 5; at < count;) {
    const uint32_t length = words[at] >> 16, op = words[at] & 0xffffu;
    if (length == 0 || at + length > count)
      break;
    const uint32_t *w = words + at;
    switch (op) {
    case kOpTypeInt:
    case kOpTypeFloat:
    case kOpTypeVector:
    case kOpTypeArray:
    case kOpTypeRuntimeArray:
    case kOpTypeStruct:
    case kOpTypePointer:
      if (length >= 2) {
        std::vector<uint32_t> t{op};
        t.insert(t.end(), w + 2, w + length);
        m.types[w[1]] = std::move(t);
      }
      break;
    case kOpConstant:
      if (length >= 4)
        m.constants[w[2]] = w[3];
      break;
    case kOpVariable:
      if (length >= 4)
        m.variables.push_back({w[2], w[1], w[3]});
      break;
    case kOpDecorate:
      if (length >= 4 && w[2] == kArrayStride) m.strides[w[1]] = w[3];
      if (length >= 4 && w[2] == kBinding) m.bindings[w[1]] = w[3];
      if (length >= 4 && w[2] == kDescriptorSet) m.sets[w[1]] = w[3];
      if (length >= 3 && w[2] == kBufferBlock) m.bufferBlock[w[1]] = true;
      break;
    case kOpMemberDecorate:
      if (length >= 5 && w[3] == kOffset)
        m.offsets[{w[1], w[2]}] = w[4];
      break;
    default:
      break;
    }
    at += length;
  }
  return m;
}

} // namespace

std::vector<ShaderBinding> reflectBindings(const uint32_t *words, size_t count) {
  Module m = parse(words, count);
  std::vector<ShaderBinding> out;
  for (const Module::Variable &v : m.variables) {
    auto binding = m.bindings.find(v.id);
    if (binding == m.bindings.end() ||
        (v.storageClass != kUniform && v.storageClass != kStorageBuffer))
      continue;
    ShaderBinding b;
    b.binding = binding->second;
    auto set = m.sets.find(v.id);
    b.set = set != m.sets.end() ? set->second : 0;
    uint32_t pointee = 0;
    auto pointer = m.types.find(v.pointerType);
    if (pointer != m.types.end() && pointer->second.size() >= 3)
      pointee = pointer->second[2];
    b.uniform = v.storageClass == kUniform && !m.bufferBlock.count(pointee);
    bool unbounded = false;
    uint64_t bytes = sizeOf(m, pointee, unbounded);
    b.bytes = unbounded ? 0 : bytes;
    out.push_back(b);
  }
  return out;
}

uint64_t workgroupMemoryBytes(const uint32_t *words, size_t count) {
  Module m = parse(words, count);
  uint64_t total = 0;
  for (const Module::Variable &v : m.variables) {
    if (v.storageClass != kWorkgroup)
      continue;
    auto pointer = m.types.find(v.pointerType);
    if (pointer == m.types.end() || pointer->second.size() < 3)
      continue;
    bool unbounded = false;
    total = saturatingAdd(total, sizeOf(m, pointer->second[2], unbounded));
  }
  return total;
}

} // namespace kiln::rt
