//===- StorageAccess.cpp - What a kernel does with its storage buffers ----===//
//
// From the uses of each storage buffer's address (through access chains):
// a buffer only loaded from is declared NonWritable, as glslang declares a
// GLSL `readonly` buffer: on the block's member. NVIDIA's driver needs it to
// keep those loads on its read-only path (docs/performance.md, tenth
// session); on the variable, equally valid SPIR-V, it gave wrong results in
// three of dory-tiny q8_2f's kernels on that driver, so the variable form is
// kept only for bisecting.
// And whether the kernel hands values between its threads through a storage
// buffer, the only case in which its workgroup barriers must order
// storage-buffer memory.
//
//===----------------------------------------------------------------------===//
#include "StorageAccess.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVTypes.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace kiln {
namespace {

/// How a kernel uses one storage buffer.
struct StorageUse {
  bool loaded = false;
  /// Non-load uses of its address: stores, atomics, copies (or not known).
  unsigned writes = 0;
};

/// The uses of each StorageBuffer variable's address (through access
/// chains), by name; a variable never addressed is not listed.
llvm::StringMap<StorageUse> storageUses(spirv::ModuleOp module) {
  llvm::StringMap<StorageUse> uses;
  std::function<void(Value, StorageUse &)> visit = [&](Value pointer, StorageUse &use) {
    for (Operation *user : pointer.getUsers()) {
      auto chain = dyn_cast<spirv::AccessChainOp>(user);
      if (chain && chain.getBasePtr() == pointer)
        visit(chain.getResult(), use);
      else if (isa<spirv::LoadOp>(user))
        use.loaded = true;
      else
        ++use.writes;
    }
  };
  module.walk([&](spirv::AddressOfOp address) {
    auto var = dyn_cast_or_null<spirv::GlobalVariableOp>(
        SymbolTable::lookupSymbolIn(module, address.getVariableAttr()));
    auto type = var ? dyn_cast<spirv::PointerType>(var.getType()) : spirv::PointerType();
    if (type && type.getStorageClass() == spirv::StorageClass::StorageBuffer)
      visit(address.getPointer(), uses[address.getVariable()]);
  });
  return uses;
}

/// `var`'s block type with NonWritable on its members (the variable retyped
/// to it; its addresses are the caller's). An identified block (never made
/// by the upstream conversion) is left as it is: null.
Type decorateMembersNonWritable(spirv::GlobalVariableOp var) {
  auto pointer = cast<spirv::PointerType>(var.getType());
  auto block = dyn_cast<spirv::StructType>(pointer.getPointeeType());
  if (!block || block.isIdentified())
    return Type();
  MLIRContext *ctx = var.getContext();
  SmallVector<Type> members(block.getElementTypes());
  SmallVector<spirv::StructType::OffsetInfo> offsets;
  SmallVector<spirv::StructType::MemberDecorationInfo> decorations;
  block.getMemberDecorations(decorations);
  for (unsigned i = 0; i < members.size(); ++i) {
    if (block.hasOffset())
      offsets.push_back(block.getMemberOffset(i));
    decorations.emplace_back(i, spirv::Decoration::NonWritable, UnitAttr::get(ctx));
  }
  SmallVector<spirv::StructType::StructDecorationInfo> blockDecorations;
  block.getStructDecorations(blockDecorations);
  auto type = spirv::PointerType::get(
      spirv::StructType::get(members, offsets, decorations, blockDecorations),
      pointer.getStorageClass());
  var.setTypeAttr(TypeAttr::get(type));
  return type;
}

} // namespace

void markReadOnlyBuffers(spirv::ModuleOp module,
                         const std::function<bool(unsigned)> &admit, bool onMember) {
  llvm::StringMap<StorageUse> uses = storageUses(module);
  MLIRContext *ctx = module.getContext();
  llvm::StringMap<Type> retyped;
  module.walk([&](spirv::GlobalVariableOp var) {
    auto type = dyn_cast<spirv::PointerType>(var.getType());
    auto binding = var.getBindingAttr();
    if (!type || type.getStorageClass() != spirv::StorageClass::StorageBuffer || !binding ||
        uses.lookup(var.getSymName()).writes > 0 || !admit(binding.getInt()))
      return;
    if (!onMember)
      var->setAttr("non_writable", UnitAttr::get(ctx));
    else if (Type type = decorateMembersNonWritable(var))
      retyped[var.getSymName()] = type;
  });
  if (!retyped.empty())
    module.walk([&](spirv::AddressOfOp address) {
      auto it = retyped.find(address.getVariable());
      if (it != retyped.end())
        address.getPointer().setType(it->second);
    });
}

bool handsValuesThroughStorage(spirv::ModuleOp module) {
  return llvm::any_of(storageUses(module), [](const auto &entry) {
    const StorageUse &use = entry.getValue();
    return use.writes > 0 && (use.loaded || use.writes > 1);
  });
}

} // namespace kiln
