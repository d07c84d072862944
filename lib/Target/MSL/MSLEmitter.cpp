//===- MSLEmitter.cpp - SPIR-V words to MSL through SPIRV-Cross's C API ---===//
#include "kiln/Target/MSL/MSLEmitter.h"

#include <spirv_cross_c.h>

namespace kiln {

namespace {
/// Owns an spvc_context: everything SPIRV-Cross allocates dies with it.
struct Context {
  spvc_context handle = nullptr;
  ~Context() {
    if (handle)
      spvc_context_destroy(handle);
  }
};

MSLResult failure(spvc_context context, const std::string &what) {
  MSLResult result;
  result.error = what;
  if (context)
    if (const char *detail = spvc_context_get_last_error_string(context))
      if (*detail)
        result.error += ": " + std::string(detail);
  return result;
}
} // namespace

MSLResult emitMSL(const std::vector<uint32_t> &words, const MSLOptions &options) {
  if (words.size() < 5 || words[0] != 0x07230203u)
    return failure(nullptr, "input is not a SPIR-V module (missing magic "
                            "number 0x07230203)");
  Context context;
  if (spvc_context_create(&context.handle) != SPVC_SUCCESS)
    return failure(nullptr, "cannot create a SPIRV-Cross context");
  spvc_parsed_ir ir = nullptr;
  if (spvc_context_parse_spirv(context.handle, words.data(), words.size(), &ir) !=
      SPVC_SUCCESS)
    return failure(context.handle, "SPIRV-Cross cannot parse the module");
  spvc_compiler compiler = nullptr;
  if (spvc_context_create_compiler(context.handle, SPVC_BACKEND_MSL, ir,
                                   SPVC_CAPTURE_MODE_TAKE_OWNERSHIP,
                                   &compiler) != SPVC_SUCCESS)
    return failure(context.handle, "cannot create the MSL compiler");
  spvc_compiler_options compilerOptions = nullptr;
  if (spvc_compiler_create_compiler_options(compiler, &compilerOptions) !=
          SPVC_SUCCESS ||
      spvc_compiler_options_set_uint(
          compilerOptions, SPVC_COMPILER_OPTION_MSL_VERSION,
          SPVC_MAKE_MSL_VERSION(options.majorVersion, options.minorVersion, 0)) !=
          SPVC_SUCCESS ||
      spvc_compiler_install_compiler_options(compiler, compilerOptions) !=
          SPVC_SUCCESS)
    return failure(context.handle, "cannot set the MSL options");

  const spvc_entry_point *entries = nullptr;
  size_t entryCount = 0;
  if (spvc_compiler_get_entry_points(compiler, &entries, &entryCount) !=
          SPVC_SUCCESS ||
      entryCount != 1)
    return failure(context.handle,
                   "expected exactly one entry point, found " +
                       std::to_string(entryCount));
  MSLResult result;
  result.kernel.entryPoint = spvc_compiler_get_cleansed_entry_point_name(
      compiler, entries[0].name, entries[0].execution_model);
  for (unsigned i = 0; i < 3; ++i)
    result.kernel.threadgroupSize[i] =
        spvc_compiler_get_execution_mode_argument_by_index(
            compiler, SpvExecutionModeLocalSize, i);
  const char *source = nullptr;
  if (spvc_compiler_compile(compiler, &source) != SPVC_SUCCESS || !source)
    return failure(context.handle, "SPIRV-Cross cannot compile to MSL");
  result.kernel.source = source;
  result.ok = true;
  return result;
}

} // namespace kiln
