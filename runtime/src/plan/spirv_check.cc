#include "plan/spirv_check.h"

#include <spirv-tools/libspirv.h>

namespace kiln::rt {

Status validateSpirv(const uint32_t *words, size_t count, const std::string &path) {
  spv_context context = spvContextCreate(SPV_ENV_VULKAN_1_1);
  if (!context)
    return internalError("plan " + path + ": cannot create a SPIR-V validator context");
  spv_const_binary_t binary{words, count};
  spv_diagnostic diagnostic = nullptr;
  const spv_result_t result = spvValidate(context, &binary, &diagnostic);
  std::string why;
  if (result != SPV_SUCCESS)
    why = diagnostic && diagnostic->error ? diagnostic->error : "rejected without a message";
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  if (result != SPV_SUCCESS)
    return invalidArgument("plan " + path + ": SPIR-V fails validation (Vulkan 1.1 rules): " +
                           why);
  return okStatus();
}

} // namespace kiln::rt
