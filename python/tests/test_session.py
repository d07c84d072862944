"""The binding's tokens and log-probs equal kiln-run's exactly on the tiny models."""
import os

import numpy as np
import pytest

import kiln
from conftest import EXAMPLES, PROMPT, STEPS


def printed(values):
    return ["%.6f" % v for v in values]


def test_generate_greedy_equals_kiln_run(model):
    plan = kiln.Plan.load(model.plan)
    s = kiln.Session(plan, weights=model.weights)
    tokens, logprobs = s.generate(STEPS, prompt=PROMPT, return_logprobs=True)
    assert tokens == model.greedy[0]
    assert logprobs.dtype == np.float32
    assert printed(logprobs) == model.greedy_batched[1]
    # The host's and the device's log-probs of the same tokens agree closely.
    assert np.allclose(logprobs, [float(v) for v in model.greedy[1]], atol=1e-5)
    assert s.position == len(PROMPT) + STEPS - 1


def test_prefill_and_step_equal_generate(model):
    s = kiln.Session(kiln.Plan.load(model.plan), weights=model.weights, device=0)
    tokens = [s.prefill(PROMPT)]
    logprobs = [s.last_logprob]
    while len(tokens) < STEPS:
        tokens.append(s.step())
        logprobs.append(s.last_logprob)
    assert tokens == model.greedy[0]
    assert printed(logprobs) == model.greedy[1]
    # The full row of the last call: the greedy token is its first maximum.
    row = s.logprobs()
    assert row.dtype == np.float32 and row.shape == (s.plan.vocab_size,)
    assert int(np.argmax(row)) == tokens[-1]
    assert row[tokens[-1]] == s.last_logprob
    assert abs(float(np.logaddexp.reduce(row.astype(np.float64)))) < 1e-4


def test_generate_continues_and_reset_repeats(model):
    s = kiln.Session(kiln.Plan.load(model.plan), weights=model.weights)
    first = s.generate(10, prompt=PROMPT)
    rest = s.generate(STEPS - 10)
    assert first + rest == model.greedy[0]
    s.reset()
    assert s.position == 0 and s.last_token is None
    assert s.generate(STEPS, prompt=PROMPT) == model.greedy[0]


def test_sampling_equals_kiln_run(model):
    plan = kiln.Plan.load(model.plan)
    s = kiln.Session(plan, weights=model.weights, seed=7, temperature=0.8, top_p=0.9)
    tokens, logprobs = s.generate(STEPS, prompt=PROMPT, return_logprobs=True)
    assert tokens == model.sampled[0]
    assert printed(logprobs) == model.sampled[1]
    # generate()'s temperature/top_p hold for that call only.
    g = kiln.Session(plan, weights=model.weights, seed=7)
    assert g.generate(STEPS, prompt=PROMPT, temperature=0.8, top_p=0.9) == model.sampled[0]
    assert (g.temperature, g.top_p) == (0.0, 1.0)


def test_plan_and_devices(model):
    devices = kiln.devices()
    assert devices and all(d.name for d in devices)
    assert all(isinstance(d.conditional_rendering, bool) for d in devices)
    plan = kiln.Plan.load(model.plan, device=devices[0].name)
    assert plan.device.name == devices[0].name
    assert plan.model_family == model.name.split("-")[0]
    assert plan.vocab_size == 256
    assert kiln.__version__


def test_upload_progress(model):
    plan = kiln.Plan.load(model.plan)
    reports = []
    kiln.Session(plan, weights=model.weights, progress=lambda done, total: reports.append((done, total)))
    total = reports[-1][1]
    assert reports[0] == (0, total) and reports[-1] == (total, total)
    assert total == sum(t for t in model.tensor_bytes)
    assert all(a[0] <= b[0] for a, b in zip(reports, reports[1:]))

    def broken(done, total):
        raise ValueError("stop")
    try:
        kiln.Session(plan, weights=model.weights, progress=broken)
        assert False, "the callback's exception was lost"
    except ValueError as error:
        assert str(error) == "stop"


def test_seek_and_robust_kernels(model):
    # seek(): the next token takes that position (a benchmark start over zeroed state).
    plan = kiln.Plan.load(model.plan)
    s = kiln.Session(plan, weights=model.weights, robust_kernels="on")
    s.seek(100)
    assert s.position == 100 and s.last_token is None
    s.prefill(PROMPT)
    assert s.position == 100 + len(PROMPT)
    # Bounded and unbounded kernels give the same greedy tokens (the clamps never bind).
    for mode in ("on", "off"):
        b = kiln.Session(plan, weights=model.weights, robust_kernels=mode)
        assert b.generate(STEPS, prompt=PROMPT) == model.greedy[0]


def test_time_kernels(model):
    # One entry a distinct kernel, in program order; their dispatches add up to the
    # program's; the session decodes the model's tokens again after a reset.
    plan = kiln.Plan.load(model.plan)
    s = kiln.Session(plan, weights=model.weights)
    s.prefill(PROMPT)
    kernels = s.time_kernels(repetitions=2, flush_mb=1)
    assert kernels and len({k["kernel"] for k in kernels}) == len(kernels)
    assert sum(k["dispatches"] for k in kernels) == s.stats()["dispatches_per_token"]
    assert all(0 <= k["min_us"] <= k["median_us"] and k["bound_bytes"] > 0 for k in kernels)
    with pytest.raises(kiln.Error) as e:
        s.time_kernels(repetitions=0)
    assert e.value.code == kiln.StatusCode.INVALID_ARGUMENT
    s.reset()
    assert s.generate(STEPS, prompt=PROMPT) == model.greedy[0]


def test_stop_token_ends_generate_and_the_session_stands_there(model):
    # generate_until on the device: the steps of a submission after the stop dispatch
    # nothing, so continuing gives the tokens of a run that never stopped; greedy, and
    # drawn with the generator rewound to the stop.
    plan = kiln.Plan.load(model.plan)
    for options, full in (({}, model.greedy[0]),
                          ({"seed": 7, "temperature": 0.8, "top_p": 0.9}, model.sampled[0])):
        stop = full[STEPS // 2]
        first = full.index(stop)
        s = kiln.Session(plan, weights=model.weights, **options)
        tokens = s.generate(STEPS, prompt=PROMPT, stop_token=stop)
        assert tokens == full[:first + 1]
        assert s.position == len(PROMPT) + first
        assert tokens + s.generate(STEPS - len(tokens)) == full


def test_head_top_p_equals_kiln_run(model):
    # Embryo's head keeps the clusters reaching head_top_p, on the device; Dory has no
    # gated head, so its tokens are the greedy ones.
    from conftest import run_kiln_run
    tokens, logprobs = run_kiln_run(model, "--head-top-p", "0.4")
    s = kiln.Session(kiln.Plan.load(model.plan), weights=model.weights, head_top_p=0.4)
    got, got_logprobs = s.generate(STEPS, prompt=PROMPT, return_logprobs=True)
    assert got == tokens
    assert np.allclose(got_logprobs, [float(v) for v in logprobs], atol=1e-5)
    if model.name.startswith("dory"):
        assert got == model.greedy[0]


def test_multi_row_prefill_equals_row_by_row(tmp_path):
    """An Embryo plan with @prefill (R rows a call) gives the prompt's next-token
    log-probabilities of feeding it a row a call, within f32 rounding, and the same
    greedy continuation; plan_info reports the program's rows."""
    config = os.path.join(EXAMPLES, "embryo-tiny.json")
    weights = kiln.synth(config, str(tmp_path / "w.safetensors"), seed=5)
    rows = kiln.compile(config, str(tmp_path / "rows.kplan"),
                        args=("--prefill-rows", "6", "--prefill-matmat-min-blocks", "1",
                              "--prefill-gdn-held"))
    plain = kiln.compile(config, str(tmp_path / "plain.kplan"), args=("--prefill-rows", "0"))
    assert kiln.Plan.load(rows).prefill_max_rows == 6
    assert kiln.Plan.load(plain).prefill_max_rows == 0
    prompt = [(7 * i + 3) % 256 for i in range(23)]
    results = []
    for path in (rows, plain):
        s = kiln.Session(kiln.Plan.load(path), weights=weights)
        first = s.prefill(prompt)
        row = s.logprobs()
        results.append((first, row, s.generate(8)))
    assert results[0][0] == results[1][0]
    assert np.allclose(results[0][1], results[1][1], atol=1e-4)
    assert results[0][2] == results[1][2]
