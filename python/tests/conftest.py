"""Fixtures: the tiny models compiled with kiln.compile(), weights from kiln.synth(), and
kiln-run's output on them (the oracle the binding must equal)."""
import json
import os
import subprocess

import pytest

import kiln

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
PROMPT = [1, 2, 3, 4, 5]
STEPS = 24


def run_kiln_run(model, *flags):
    """kiln-run's tokens and the log-probs it prints (as printed: %.6f). One token a
    submission: the host picks every token, as the binding's step-by-step calls do (many
    a submission, the device computes the log-probs in f32 and the last digit may
    differ)."""
    out = subprocess.run(
        [kiln.find_tool("kiln-run"), model.plan, "--weights", model.weights, "--prompt",
         ",".join(map(str, PROMPT)), "--max-new", str(STEPS), "--print-logprobs",
         "--tokens-per-submit", "1", *flags],
        check=True, stdout=subprocess.PIPE, text=True).stdout.splitlines()
    tokens = [int(t) for t in out[0].split(",")]
    logprobs = [line.split()[3] for line in out[1:] if line.startswith("token ")]
    return tokens, logprobs


def tensor_bytes(path):
    """Each tensor's data bytes, from the safetensors header."""
    with open(path, "rb") as f:
        size = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(size))
    return [end - begin for name, entry in header.items() if name != "__metadata__"
            for begin, end in [entry["data_offsets"]]]


class Model:
    def __init__(self, name, tmp):
        self.name = name
        self.config = os.path.join(EXAMPLES, name + ".json")
        self.plan = kiln.compile(self.config, os.path.join(tmp, name + ".kplan"))
        self.weights = kiln.synth(self.config, os.path.join(tmp, name + ".safetensors"), seed=3)
        self.tensor_bytes = tensor_bytes(self.weights)
        self.greedy = run_kiln_run(self)
        # generate() runs many greedy tokens a submission, as kiln-run by default: the
        # device computes those log-probs (f32), so they are compared with this run's.
        self.greedy_batched = run_kiln_run(self, "--tokens-per-submit", "16")
        self.sampled = run_kiln_run(self, "--temperature", "0.8", "--top-p", "0.9",
                                    "--seed", "7")


_models = {}


def built(name, tmp_path_factory):
    if name not in _models:
        _models[name] = Model(name, str(tmp_path_factory.mktemp(name)))
    return _models[name]


@pytest.fixture(scope="session", params=["embryo-tiny", "dory-tiny"])
def model(request, tmp_path_factory):
    """Each tiny model in turn: for what must hold on both families."""
    return built(request.param, tmp_path_factory)


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    """dory-tiny alone: for failures, which do not depend on the family."""
    return built("dory-tiny", tmp_path_factory)
