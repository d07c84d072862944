//===- CooperativeMatrixNV.cpp - KHR cooperative matrices as NV ones -----===//
#include "kiln/Target/SPIRV/CooperativeMatrixNV.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstring>
#include <map>
#include <optional>
#include <string>

namespace kiln {
namespace {

// Opcodes and enumerants of the SPIR-V grammar (unified headers 1.6 rev 2).
enum : uint32_t {
  kOpExtension = 10,
  kOpCapability = 17,
  kOpTypeBool = 20,
  kOpConstantTrue = 41,
  kOpConstantFalse = 42,
  kOpConstant = 43,
  kOpFunction = 54,
  kOpTypeCooperativeMatrixKHR = 4456,
  kOpCooperativeMatrixLoadKHR = 4457,
  kOpCooperativeMatrixStoreKHR = 4458,
  kOpCooperativeMatrixMulAddKHR = 4459,
  kOpCooperativeMatrixLengthKHR = 4460,
  kOpTypeCooperativeMatrixNV = 5358,
  kOpCooperativeMatrixLoadNV = 5359,
  kOpCooperativeMatrixStoreNV = 5360,
  kOpCooperativeMatrixMulAddNV = 5361,
  kOpCooperativeMatrixLengthNV = 5362,
  kCapabilityCooperativeMatrixNV = 5357,
  kCapabilityCooperativeMatrixKHR = 6022,
  kLayoutRowMajor = 0,
  kLayoutColumnMajor = 1,
};
constexpr size_t kHeaderWords = 5;

using Instruction = std::vector<uint32_t>; // [opcode, operands...]

llvm::Error fail(const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cooperative matrix KHR -> NV: " + why);
}

/// An OpExtension's literal string as words (nul-terminated, zero-padded).
Instruction extension(llvm::StringRef name) {
  std::vector<uint32_t> words((name.size() + 4) / 4, 0);
  std::memcpy(words.data(), name.data(), name.size());
  Instruction inst{kOpExtension};
  inst.insert(inst.end(), words.begin(), words.end());
  return inst;
}

std::string extensionName(const Instruction &inst) {
  std::string text(reinterpret_cast<const char *>(inst.data() + 1),
                   (inst.size() - 1) * sizeof(uint32_t));
  return text.substr(0, text.find('\0'));
}

} // namespace

llvm::Expected<std::vector<uint32_t>> cooperativeMatrixKHRToNV(llvm::ArrayRef<uint32_t> words) {
  if (words.size() < kHeaderWords || words[0] != 0x07230203u)
    return fail("not a SPIR-V module (no magic number)");
  std::vector<Instruction> insts;
  bool khr = false;
  for (size_t i = kHeaderWords; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    if (count == 0 || i + count > words.size())
      return fail("malformed instruction at word " + llvm::Twine(i));
    Instruction inst{words[i] & 0xffffu};
    inst.insert(inst.end(), words.begin() + i + 1, words.begin() + i + count);
    khr |= inst[0] == kOpCapability && inst.size() == 2 && inst[1] == kCapabilityCooperativeMatrixKHR;
    insts.push_back(std::move(inst));
    i += count;
  }
  if (!khr)
    return std::vector<uint32_t>(words.begin(), words.end());

  // What the rewrite reads: integer constants (the layouts), the bool type
  // and its constants (reused where present), and the NV types made so far.
  uint32_t bound = words[3];
  llvm::DenseMap<uint32_t, uint32_t> constants;
  std::optional<uint32_t> boolType, trueId, falseId;
  for (const Instruction &inst : insts) {
    if (inst[0] == kOpConstant && inst.size() == 4)
      constants[inst[2]] = inst[3];
    else if (inst[0] == kOpTypeBool && inst.size() == 2)
      boolType = inst[1];
  }
  for (const Instruction &inst : insts)
    if (boolType && inst.size() == 3 && inst[1] == *boolType) {
      if (inst[0] == kOpConstantTrue)
        trueId = inst[2];
      else if (inst[0] == kOpConstantFalse)
        falseId = inst[2];
    }
  std::vector<Instruction> added;
  auto newId = [&] { return bound++; };
  if (!boolType) {
    boolType = newId();
    added.push_back({kOpTypeBool, *boolType});
  }
  if (!falseId) {
    falseId = newId();
    added.push_back({kOpConstantFalse, *boolType, *falseId});
  }
  if (!trueId) {
    trueId = newId();
    added.push_back({kOpConstantTrue, *boolType, *trueId});
  }
  auto columnMajor = [&](uint32_t layout) -> llvm::Expected<uint32_t> {
    auto it = constants.find(layout);
    if (it == constants.end() || (it->second != kLayoutRowMajor && it->second != kLayoutColumnMajor))
      return fail("a load or store's layout %" + llvm::Twine(layout) +
                  " is not a constant RowMajor (0) or ColumnMajor (1)");
    return it->second == kLayoutColumnMajor ? *trueId : *falseId;
  };
  // (component type, scope, rows, columns) -> the KHR type that made it.
  std::map<std::array<uint32_t, 4>, uint32_t> nvTypes;

  std::vector<Instruction> out;
  bool placed = false;
  for (Instruction &inst : insts) {
    // The bool declarations go where the types end: before the first function.
    if (!placed && inst[0] == kOpFunction) {
      llvm::append_range(out, added);
      placed = true;
    }
    switch (inst[0]) {
    case kOpCapability:
      if (inst.size() == 2 && inst[1] == kCapabilityCooperativeMatrixKHR)
        inst[1] = kCapabilityCooperativeMatrixNV;
      break;
    case kOpExtension:
      if (extensionName(inst) == "SPV_KHR_cooperative_matrix")
        inst = extension("SPV_NV_cooperative_matrix");
      break;
    case kOpTypeCooperativeMatrixKHR: {
      // [op, result, component, scope, rows, columns, use]
      if (inst.size() != 7)
        return fail("OpTypeCooperativeMatrixKHR %" + llvm::Twine(inst.size() > 1 ? inst[1] : 0) +
                    " has " + llvm::Twine(inst.size() - 1) + " operands, not 6");
      auto [it, fresh] = nvTypes.insert({{inst[2], inst[3], inst[4], inst[5]}, inst[1]});
      if (!fresh)
        return fail("types %" + llvm::Twine(it->second) + " and %" + llvm::Twine(inst[1]) +
                    " differ only in their use; as NV types they would be duplicates");
      inst = {kOpTypeCooperativeMatrixNV, inst[1], inst[2], inst[3], inst[4], inst[5]};
      break;
    }
    case kOpCooperativeMatrixLoadKHR: {
      // [op, type, result, pointer, layout, stride, memory operands...]
      if (inst.size() < 6)
        return fail("OpCooperativeMatrixLoadKHR %" + llvm::Twine(inst.size() > 2 ? inst[2] : 0) +
                    " has no stride (the NV load needs one)");
      llvm::Expected<uint32_t> major = columnMajor(inst[4]);
      if (!major)
        return major.takeError();
      Instruction nv{kOpCooperativeMatrixLoadNV, inst[1], inst[2], inst[3], inst[5], *major};
      nv.insert(nv.end(), inst.begin() + 6, inst.end());
      inst = std::move(nv);
      break;
    }
    case kOpCooperativeMatrixStoreKHR: {
      // [op, pointer, object, layout, stride, memory operands...]
      if (inst.size() < 5)
        return fail("an OpCooperativeMatrixStoreKHR has no stride (the NV store needs one)");
      llvm::Expected<uint32_t> major = columnMajor(inst[3]);
      if (!major)
        return major.takeError();
      Instruction nv{kOpCooperativeMatrixStoreNV, inst[1], inst[2], inst[4], *major};
      nv.insert(nv.end(), inst.begin() + 5, inst.end());
      inst = std::move(nv);
      break;
    }
    case kOpCooperativeMatrixMulAddKHR:
      // [op, type, result, a, b, c, operands?]
      if (inst.size() < 6 || (inst.size() == 7 && inst[6] != 0) || inst.size() > 7)
        return fail("OpCooperativeMatrixMulAddKHR %" +
                    llvm::Twine(inst.size() > 2 ? inst[2] : 0) +
                    " takes operand flags (signedness, saturation), which the NV form lacks");
      inst = {kOpCooperativeMatrixMulAddNV, inst[1], inst[2], inst[3], inst[4], inst[5]};
      break;
    case kOpCooperativeMatrixLengthKHR:
      inst[0] = kOpCooperativeMatrixLengthNV;
      break;
    default:
      break;
    }
    out.push_back(std::move(inst));
  }
  if (!placed)
    return fail("the module has no function");

  std::vector<uint32_t> result(words.begin(), words.begin() + kHeaderWords);
  result[3] = bound;
  for (const Instruction &inst : out) {
    result.push_back(static_cast<uint32_t>(inst.size()) << 16 | inst[0]);
    result.insert(result.end(), inst.begin() + 1, inst.end());
  }
  return result;
}

} // namespace kiln
