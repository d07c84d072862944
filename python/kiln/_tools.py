"""kiln.compile() and kiln.synth(): run kiln-compile and kiln-synth from Python."""
import os
import shutil
import subprocess

from . import _build_info
from ._errors import Error, StatusCode, ToolError


def find_tool(name, path=None):
    """The path of Kiln tool `name`: `path` when given, else the one beside this package
    (the build tree's bin/, or the install prefix's), else the one on PATH."""
    if path is not None:
        path = os.fspath(path)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise Error(StatusCode.NOT_FOUND, f"{name}: '{path}' is not an executable file")
        return path
    beside = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                           _build_info.TOOLS_RELATIVE, name))
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    found = shutil.which(name)
    if found:
        return found
    raise Error(StatusCode.NOT_FOUND,
                f"{name} not found: not at {beside} nor on PATH (pass its path as an argument)")


def _run(tool, arguments):
    done = subprocess.run([tool] + [os.fspath(a) for a in arguments],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise ToolError(os.path.basename(tool), done.returncode, done.stderr)
    return done.stdout


def compile(config, output, *, weight_format="f16", args=(), kiln_compile=None):
    """Compiles model config `config` (docs/config.md) into the plan `output`
    (kiln-compile CONFIG --weight-format F -o OUTPUT ARGS...); returns `output`.
    `kiln_compile`: the tool's path (default: beside the package, else on PATH)."""
    tool = find_tool("kiln-compile", kiln_compile)
    _run(tool, [config, "--weight-format", weight_format, "-o", output, "--quiet", *args])
    return os.fspath(output)


def synth(config, output, *, format="f16", seed=0, kiln_synth=None):
    """Writes synthetic weights for `config` to the safetensors file `output`
    (kiln-synth); returns `output`."""
    tool = find_tool("kiln-synth", kiln_synth)
    _run(tool, ["--config", config, "--format", format, "--seed", str(seed), "--quiet",
                "-o", output])
    return os.fspath(output)
