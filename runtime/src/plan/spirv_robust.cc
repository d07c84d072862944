#include "plan/spirv_robust.h"

#include "plan/spirv_check.h"

#include <spirv-tools/optimizer.hpp>

namespace kiln::rt {

Status clampKernelAccesses(const uint32_t *words, size_t count, const std::string &path,
                           std::vector<uint32_t> &out) {
  spvtools::Optimizer optimizer(spirvEnvironmentOf(vulkanVersionOf(words, count)));
  std::string why;
  optimizer.SetMessageConsumer([&](spv_message_level_t level, const char *, const spv_position_t &,
                                   const char *message) {
    if (level <= SPV_MSG_ERROR && why.empty() && message)
      why = message;
  });
  optimizer.RegisterPass(spvtools::CreateGraphicsRobustAccessPass());
  out.clear();
  // The plan verifier validated the module already; the pass's output is valid too.
  spvtools::ValidatorOptions validator;
  spvtools::OptimizerOptions options;
  options.set_run_validator(false);
  options.set_validator_options(validator);
  if (!optimizer.Run(words, count, &out, options))
    return invalidArgument("plan " + path + ": cannot bound the kernel's indexed accesses: " +
                           (why.empty() ? std::string("the robust access pass failed") : why));
  return okStatus();
}

} // namespace kiln::rt
