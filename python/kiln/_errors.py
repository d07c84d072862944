"""kiln.Error: every failure of the runtime (a C API status) and of the tool helpers."""
import enum


class StatusCode(enum.IntEnum):
    """kiln_status_code_t (runtime/include/kiln/runtime.h)."""
    OK = 0
    INVALID_ARGUMENT = 1
    NOT_FOUND = 2
    OUT_OF_RANGE = 3
    RESOURCE_EXHAUSTED = 4
    FAILED_PRECONDITION = 5
    UNAVAILABLE = 6
    INTERNAL = 7


class Error(Exception):
    """A Kiln failure: `code` (a StatusCode) and `message`, as the C API reports them."""

    def __init__(self, code, message):
        try:
            code = StatusCode(code)
        except ValueError:
            code = StatusCode.INTERNAL
        self.code = code
        self.message = message
        super().__init__(f"{code.name}: {message}")


class ToolError(Error):
    """A Kiln tool (kiln-compile, kiln-synth) that exited non-zero: `returncode`, `stderr`."""

    def __init__(self, tool, returncode, stderr):
        self.tool = tool
        self.returncode = returncode
        self.stderr = stderr
        super().__init__(StatusCode.INVALID_ARGUMENT,
                         f"{tool} exited with {returncode}: {stderr.strip()}")
