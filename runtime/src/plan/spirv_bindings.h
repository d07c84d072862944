// The resource bindings a kernel's SPIR-V declares, read from its decorations, so the
// plan verifier can hold a plan's binding list to what the shader will access (issue 12:
// renumbered, dropped or too-small bindings ran and printed wrong tokens).
#ifndef KILN_RUNTIME_PLAN_SPIRV_BINDINGS_H
#define KILN_RUNTIME_PLAN_SPIRV_BINDINGS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::rt {

/// One buffer variable of the module (an OpVariable with DescriptorSet and Binding).
struct ShaderBinding {
  uint32_t set = 0;
  uint32_t binding = 0;
  /// A uniform buffer (Uniform storage class, Block); else a storage buffer.
  bool uniform = false;
  /// Bytes the variable's type spans; 0 when it ends in a runtime array.
  uint64_t bytes = 0;
};

/// The buffer bindings of a module that already passed validateSpirv. Reads only; a
/// malformed stream yields what was read before the fault.
std::vector<ShaderBinding> reflectBindings(const uint32_t *words, size_t count);

/// Bytes of workgroup memory a module that already passed validateSpirv declares (its
/// Workgroup variables' types, elements at their natural size where no stride says).
uint64_t workgroupMemoryBytes(const uint32_t *words, size_t count);

} // namespace kiln::rt

#endif // KILN_RUNTIME_PLAN_SPIRV_BINDINGS_H
