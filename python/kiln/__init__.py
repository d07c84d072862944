"""Kiln: run compiled plans (.kplan) of small decode-time language models on Vulkan.

    import kiln
    plan = kiln.Plan.load("model.kplan")
    s = kiln.Session(plan, weights="model.safetensors", device=0, seed=0)
    tokens = s.generate(16, prompt=[1, 2, 3])      # greedy unless temperature > 0
    lp = s.logprobs()                              # NumPy float32, one per vocabulary entry

Every failure raises kiln.Error (`code`, a kiln.StatusCode, and `message`).
"""
from ._errors import Error, StatusCode, ToolError
from ._kiln import Device, Plan, Session, devices
from ._tools import compile, find_tool, synth
from ._build_info import VERSION as __version__

__all__ = ["Device", "Error", "Plan", "Session", "StatusCode", "ToolError", "compile",
           "devices", "find_tool", "synth", "__version__"]
