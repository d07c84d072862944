# Kiln's lit configuration: suffixes, excludes and tool substitutions.
import os
import shutil

import lit.formats

config.name = "Kiln"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test", ".json"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "CMakeLists.txt", "README.md"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")

# --param sanitized_tools_dir=DIR puts DIR's tools (a sanitizer build's kiln-opt, say)
# ahead of the build's own; tools it lacks come from the build (scripts/test.sh).
config.environment["PATH"] = os.pathsep.join(
    ([lit_config.params["sanitized_tools_dir"]] if "sanitized_tools_dir" in lit_config.params else []) +
    [config.kiln_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
# Vulkan tests run on whatever device the machine has (lavapipe in CI).
for var in ["VK_ICD_FILENAMES", "VK_DRIVER_FILES", "KILN_DEVICE", "HOME", "XDG_RUNTIME_DIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%kiln_src", config.kiln_src_root))
config.substitutions.append(("%examples", os.path.join(config.kiln_src_root, "examples")))

if config.kiln_has_compiler:
    config.available_features.add("compiler")
if shutil.which("spirv-val"):
    config.available_features.add("spirv-val")
if shutil.which("spirv-cross"):
    config.available_features.add("spirv-cross")
# The Khronos validation layer (vulkan-validationlayers), where the loader finds it.
if any(os.path.exists(os.path.join(d, "VkLayer_khronos_validation.json"))
       for d in ("/usr/share/vulkan/explicit_layer.d", "/usr/local/share/vulkan/explicit_layer.d",
                 "/etc/vulkan/explicit_layer.d")):
    config.available_features.add("vulkan-validation")
