//===- StorageAccess.cpp - What a kernel does with its storage buffers ----===//
//
// From the uses of each storage buffer's address (through access chains):
// a buffer only loaded from is declared NonWritable, as glslang declares a
// GLSL `readonly` buffer: on the block's member. NVIDIA's driver needs it to keep those loads
// on its read-only path (docs/performance.md, tenth session); on the variable,
// equally valid SPIR-V, it gave wrong results in three of dory-tiny q8_2f's
// kernels on that driver, so the variable form is kept only for bisecting.
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
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace kiln {
namespace {

/// True when every use of `pointer` (through access chains) is a load.
bool onlyLoaded(Value pointer) {
  for (Operation *user : pointer.getUsers()) {
    if (isa<spirv::LoadOp>(user))
      continue;
    auto chain = dyn_cast<spirv::AccessChainOp>(user);
    if (chain && chain.getBasePtr() == pointer && onlyLoaded(chain.getResult()))
      continue;
    return false; // a store, an atomic, a copy: written, or not known
  }
  return true;
}

/// `var`'s block type with NonWritable on its members, the variable and its
/// addresses retyped to it. An identified block (never made by the upstream
/// conversion) is left as it is.
void decorateMembersNonWritable(spirv::GlobalVariableOp var) {
  auto pointer = cast<spirv::PointerType>(var.getType());
  auto block = dyn_cast<spirv::StructType>(pointer.getPointeeType());
  if (!block || block.isIdentified())
    return;
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
  auto module = var->getParentOfType<spirv::ModuleOp>();
  module.walk([&](spirv::AddressOfOp address) {
    if (address.getVariable() == var.getSymName())
      address.getPointer().setType(type);
  });
}

} // namespace

void markReadOnlyBuffers(spirv::ModuleOp module,
                         const std::function<bool(unsigned)> &admit, bool onMember) {
  llvm::StringSet<> written;
  module.walk([&](spirv::AddressOfOp address) {
    if (!onlyLoaded(address.getPointer()))
      written.insert(address.getVariable());
  });
  MLIRContext *ctx = module.getContext();
  SmallVector<spirv::GlobalVariableOp> readOnly;
  module.walk([&](spirv::GlobalVariableOp var) {
    auto type = dyn_cast<spirv::PointerType>(var.getType());
    auto binding = var.getBindingAttr();
    if (type && type.getStorageClass() == spirv::StorageClass::StorageBuffer &&
        !written.contains(var.getSymName()) && binding && admit(binding.getInt()))
      readOnly.push_back(var);
  });
  for (spirv::GlobalVariableOp var : readOnly) {
    if (onMember)
      decorateMembersNonWritable(var);
    else
      var->setAttr("non_writable", UnitAttr::get(ctx));
  }
}

bool handsValuesThroughStorage(spirv::ModuleOp module) {
  // Per variable: is it loaded from, and at how many places is it written.
  llvm::StringMap<std::pair<bool, unsigned>> uses;
  std::function<void(Value, StringRef)> visit = [&](Value pointer, StringRef var) {
    for (Operation *user : pointer.getUsers()) {
      auto chain = dyn_cast<spirv::AccessChainOp>(user);
      if (chain && chain.getBasePtr() == pointer)
        visit(chain.getResult(), var);
      else if (isa<spirv::LoadOp>(user))
        uses[var].first = true;
      else
        ++uses[var].second; // a store, an atomic, a copy
    }
  };
  module.walk([&](spirv::AddressOfOp address) {
    auto var = dyn_cast_or_null<spirv::GlobalVariableOp>(
        SymbolTable::lookupSymbolIn(module, address.getVariableAttr()));
    auto type = var ? dyn_cast<spirv::PointerType>(var.getType()) : spirv::PointerType();
    if (type && type.getStorageClass() == spirv::StorageClass::StorageBuffer)
      visit(address.getPointer(), address.getVariable());
  });
  return llvm::any_of(uses, [](const auto &entry) {
    auto [loaded, writes] = entry.getValue();
    return writes > 0 && (loaded || writes > 1);
  });
}

} // namespace kiln
