"""Bad paths and bad calls raise kiln.Error with the runtime's status code and message."""
import os

import pytest

import kiln
from conftest import PROMPT


def test_missing_plan(tmp_path):
    with pytest.raises(kiln.Error) as raised:
        kiln.Plan.load(str(tmp_path / "missing.kplan"))
    assert raised.value.code == kiln.StatusCode.NOT_FOUND
    assert "missing.kplan" in raised.value.message
    assert str(raised.value).startswith("NOT_FOUND: ")


def test_not_a_plan(tmp_path):
    bogus = tmp_path / "bogus.kplan"
    bogus.write_bytes(b"not a plan at all" * 10)
    with pytest.raises(kiln.Error) as raised:
        kiln.Plan.load(str(bogus))
    assert raised.value.code == kiln.StatusCode.INVALID_ARGUMENT


def test_missing_weights(tiny, tmp_path):
    plan = kiln.Plan.load(tiny.plan)
    with pytest.raises(kiln.Error) as raised:
        kiln.Session(plan, weights=str(tmp_path / "missing.safetensors"))
    assert raised.value.code == kiln.StatusCode.NOT_FOUND
    assert "missing.safetensors" in raised.value.message


def test_bad_calls(tiny):
    plan = kiln.Plan.load(tiny.plan)
    with pytest.raises(kiln.Error) as raised:
        kiln.Session(plan, weights=tiny.weights, temperature=-1)
    assert raised.value.code == kiln.StatusCode.INVALID_ARGUMENT
    s = kiln.Session(plan, weights=tiny.weights)
    with pytest.raises(kiln.Error) as raised:
        s.step()
    assert raised.value.code == kiln.StatusCode.FAILED_PRECONDITION
    with pytest.raises(kiln.Error) as raised:
        s.prefill([plan.vocab_size])
    assert raised.value.code == kiln.StatusCode.OUT_OF_RANGE
    with pytest.raises(kiln.Error) as raised:
        s.generate(4, prompt=PROMPT, top_p=2.0)
    assert raised.value.code == kiln.StatusCode.INVALID_ARGUMENT
    with pytest.raises(kiln.Error) as raised:
        kiln.Session(plan, weights=tiny.weights, device=-2)
    assert raised.value.code == kiln.StatusCode.INVALID_ARGUMENT
    with pytest.raises(kiln.Error) as raised:
        kiln.Session(plan, weights=tiny.weights, device=4096)
    assert raised.value.code == kiln.StatusCode.NOT_FOUND
    with pytest.raises(kiln.Error) as raised:
        kiln.Session(plan, weights=tiny.weights, robust_kernels="sometimes")
    assert raised.value.code == kiln.StatusCode.INVALID_ARGUMENT
    assert "robust_kernels" in raised.value.message
    with pytest.raises(kiln.Error) as raised:
        s.seek(plan.max_position)
    assert raised.value.code == kiln.StatusCode.OUT_OF_RANGE
    s.close()
    with pytest.raises(kiln.Error) as raised:
        s.prefill(PROMPT)
    assert raised.value.code == kiln.StatusCode.FAILED_PRECONDITION


def test_tool_errors(tmp_path):
    with pytest.raises(kiln.Error) as raised:
        kiln.compile("x.json", str(tmp_path / "x.kplan"), kiln_compile=str(tmp_path / "nope"))
    assert raised.value.code == kiln.StatusCode.NOT_FOUND
    with pytest.raises(kiln.ToolError) as raised:
        kiln.compile(str(tmp_path / "missing.json"), str(tmp_path / "x.kplan"))
    assert raised.value.returncode != 0 and "missing.json" in raised.value.stderr
    assert not os.path.exists(tmp_path / "x.kplan")


def test_one_call_at_a_time(tiny):
    # Calls release the GIL: another thread's call during generate() raises, not races.
    import threading
    s = kiln.Session(kiln.Plan.load(tiny.plan), weights=tiny.weights)
    worker = threading.Thread(target=s.generate, args=(64,), kwargs={"prompt": PROMPT})
    worker.start()
    refused = None
    while worker.is_alive() and refused is None:
        try:
            s.position
        except kiln.Error as error:
            refused = error
    worker.join()
    assert refused is not None and refused.code == kiln.StatusCode.FAILED_PRECONDITION
    assert "in use by another thread" in refused.message
    assert s.position == len(PROMPT) + 63
