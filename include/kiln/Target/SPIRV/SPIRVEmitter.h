//===- SPIRVEmitter.h - GPU kernels to SPIR-V words -------------*- C++ -*-===//
#ifndef KILN_TARGET_SPIRV_SPIRVEMITTER_H
#define KILN_TARGET_SPIRV_SPIRVEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kiln {

struct TargetOptions {
  /// A `#spirv.target_env<...>` in textual form. Used when the module carries
  /// no `spirv.target_env` attribute; empty means kDefaultTargetEnv.
  std::string targetEnv;
  /// Decorate every storage buffer a kernel only loads from `NonWritable`
  /// (GLSL's `readonly`), so the driver may read it through its read-only
  /// path; false leaves every buffer undecorated, as before.
  bool readOnlyBuffers = true;
  /// Where NonWritable goes: on the block's member (as glslang writes a
  /// `readonly` buffer) or on the variable.
  bool readOnlyOnMember = true;
  /// When set, only the bindings it admits (kernel name, binding number) are
  /// decorated: e.g. those of one kind of buffer (readOnlyKindsFilter).
  std::function<bool(llvm::StringRef kernel, unsigned binding)> readOnlyFilter;
  /// Workgroup barriers order storage-buffer memory (UniformMemory) only in a
  /// kernel that hands values between its threads through a storage buffer
  /// (writes one it also loads from, or writes one at several places); false:
  /// every barrier does, as before.
  bool storageBarriersWhereNeeded = false;
};

/// A gpu.func attribute (an i32): the subgroup size the kernel is only
/// correct with (KernelBinary::requiredSubgroupSize).
inline constexpr llvm::StringLiteral kRequiredSubgroupSizeAttr = "kiln.required_subgroup_size";
/// A gpu.func attribute (unit): the kernel uses gpu.subgroup_mma_*. It is
/// lowered under the module's target env raised to SPIR-V 1.6 with
/// SPV_KHR_cooperative_matrix and Float16 (what MLIR's conversion needs), and
/// its binary rewritten to SPV_NV_cooperative_matrix (CooperativeMatrixNV.h),
/// which the runtime's validator and NVIDIA's Vulkan drivers accept.
inline constexpr llvm::StringLiteral kCooperativeMatrixAttr = "kiln.cooperative_matrix";

/// Vulkan 1.1 compute with no optional capability: runs anywhere.
extern const char *const kDefaultTargetEnv;

struct KernelBinary {
  std::string name;
  std::vector<uint32_t> words;
  std::array<int32_t, 3> workgroupSize = {1, 1, 1};
  /// Storage-buffer bindings of descriptor set 0, numbered 0..n-1 in the
  /// kernel's argument order.
  unsigned bindingCount = 0;
  /// 0: any subgroup size (kRequiredSubgroupSizeAttr).
  uint32_t requiredSubgroupSize = 0;
};

/// Runs the upstream GPU-to-SPIR-V pipeline (map-memref-spirv-storage-class,
/// convert-math-to-spirv, convert-gpu-to-spirv, spirv-lower-abi-attrs,
/// spirv-update-vce) on each kernel of each gpu.module separately, marks its
/// read-only buffers (TargetOptions::readOnlyBuffers) and serializes it. Errors are emitted as diagnostics on the module.
mlir::FailureOr<std::vector<KernelBinary>> emitSPIRV(mlir::ModuleOp module,
                                                     const TargetOptions &options);

/// The same pipeline, stopping before serialization: the spirv.module of one
/// kernel, for tests that FileCheck the SPIR-V dialect.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
lowerKernelToSPIRV(mlir::ModuleOp module, llvm::StringRef kernel,
                   const TargetOptions &options);

} // namespace kiln

#endif // KILN_TARGET_SPIRV_SPIRVEMITTER_H
