#!/usr/bin/env python3
"""Random tiny configs of both families, compiled and run against the CPU reference.

Kiln is checked with configs off the seeds' path; this draws them: sizes of hidden rows,
heads, windows, landmarks, clusters and vocabularies that no example uses, loop passes and
exit thresholds, with and without MoE, for the native and h200 cost targets, both weight
formats and one random tuning switch a plan (reduce widths, no fusion, subgroup items, the
slerp inside or after the dots, tails, odd item shapes, a 32-thread attention, a limited
mat-vec grid with the staged input, every dispatch in every call, split attention with
blocks of 64 or of 3 keys; for Embryo, a multi-row @prefill of 2 to 5 rows a call). Each plan
runs a short greedy decode with --check-reference on the local Vulkan device (lavapipe if
none). A failing config is kept in OUT_DIR with the command that failed.

  scripts/random-configs.py [--build BUILD] [--seed N] [--count N] [--family F] [--switch=FLAGS]
                            [--out OUT_DIR]

--switch gives every plan the same flags (a switch under test) instead of a random one;
--family embryo|dory draws one family's configs only (an Embryo-only switch: --prefill-rows).

Exit status 1 if any compile or run failed. Slow (a few seconds a plan on lavapipe): a tool
for a session's hardening, not a CI test.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SWITCHES = [[], ["--reduce-workgroup-size", "32"], ["--reduce-workgroup-size", "64"],
            ["--no-fusion"], ["--matvec-items", "subgroup"], ["--matvec-slerp", "inside"],
            ["--matvec-slerp", "after-dots"], ["--last-workgroup-tails"],
            ["--matvec-rows-per-item", "3", "--matvec-groups-per-thread", "5"],
            ["--attention-workgroup-size", "32"],
            ["--matvec-grid-limit", "3", "--matvec-stage-input"],
            ["--matvec-grid-limit", "2", "--matvec-stage-input", "--matvec-slerp", "inside"],
            ["--every-dispatch-every-call"], ["--split-attention"],
            ["--split-attention", "--block-keys", "3", "--attention-workgroup-size", "32"]]
# Embryo only: a multi-row @prefill feeds the 11-token prompt a few rows a call.
EMBRYO_SWITCHES = [["--prefill-rows", "5"], ["--prefill-rows", "40"],
                   ["--prefill-rows", "2", "--prefill-matmat-min-blocks", "0",
                    "--prefill-gdn-held=false"],
                   ["--prefill-rows", "5", "--prefill-matmat-min-blocks", "1",
                    "--prefill-gdn-chunk-rows", "2"],
                   ["--prefill-rows", "11", "--prefill-matmat-min-blocks", "1",
                    "--prefill-matmat-tile", "8"],
                   ["--gdn-shuffle-sums", "--prefill-rows", "4", "--prefill-gdn-shuffle-sums",
                    "--prefill-gdn-chunk-rows", "3"],
                   ["--prefill-rows", "6", "--prefill-gdn-columns", "5",
                    "--prefill-gdn-chunk-rows", "4"]]


def dory(rng, config):
    kv = rng.choice([1, 2, 3])
    config.update(hidden_size=rng.choice([40, 64, 70, 96, 130, 200, 520, 600]),
                  intermediate_size=rng.choice([50, 90, 128, 300, 700]), num_kv_heads=kv,
                  num_q_heads=kv * rng.choice([1, 2, 3]), head_dim=rng.choice([8, 10, 16, 24, 32]),
                  window=rng.choice([4, 8, 13]), vocab_size=rng.choice([100, 256, 300]),
                  num_layers=rng.choice([1, 2, 3]))
    config["far_field"]["landmarks"] = rng.choice([2, 4, 5])
    config["loop"]["passes"] = rng.choice([1, 2, 3])
    config["loop"]["exit_threshold"] = rng.choice([0.05, 0.9])


def embryo(rng, config):
    config.update(hidden_size=rng.choice([40, 69, 72, 100, 136, 520, 600]),
                  intermediate_size=rng.choice([50, 96, 130, 700]),
                  num_clusters=rng.choice([7, 15, 16]), cluster_size=rng.choice([9, 16, 17]))
    config["vocab_size"] = config["num_clusters"] * config["cluster_size"]
    config["anchor"]["head_dim"] = rng.choice([8, 13, 16, 24])
    config["anchor"]["rotary_dim"] = rng.choice([4, 6, 8])
    config["gdn"]["head_k_dim"] = rng.choice([8, 13, 16])
    config["gdn"]["head_v_dim"] = rng.choice([8, 11, 12, 20])
    if rng.random() < 0.4:
        config.pop("moe", None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--count", type=int, default=10, help="configs to draw (default 10)")
    parser.add_argument("--family", choices=["both", "embryo", "dory"], default="both",
                        help="which family the configs are drawn from (default both)")
    parser.add_argument("--switch", default=None,
                        help="kiln-compile flags every plan takes instead of a random switch "
                             "(one string, given as --switch=\"--split-attention --block-keys 3\")")
    parser.add_argument("--out", default="random-configs-failures",
                        help="where failing configs go (default ./random-configs-failures)")
    args = parser.parse_args()
    tools = os.path.join(args.build, "bin")
    for tool in ("kiln-compile", "kiln-synth", "kiln-run"):
        if not os.access(os.path.join(tools, tool), os.X_OK):
            sys.exit(f"random-configs: no {tool} in {tools} (build first, or pass --build)")
    rng = random.Random(args.seed)
    failures = 0
    work = tempfile.mkdtemp(prefix="kiln-random-")
    try:
        for i in range(args.count):
            family = rng.choice(["dory", "embryo"] if args.family == "both" else [args.family])
            with open(os.path.join(ROOT, "examples", f"{family}-tiny.json")) as f:
                config = json.load(f)
            (dory if family == "dory" else embryo)(rng, config)
            path = os.path.join(work, f"config-{i}.json")
            with open(path, "w") as f:
                json.dump(config, f, indent=2)
            target = rng.choice([[], ["--cost-target", "h200"]])
            for fmt in ("f16", "q8_2f"):
                drawn = rng.choice(SWITCHES + (EMBRYO_SWITCHES if family == "embryo" else []))
                flags = target + (args.switch.split() if args.switch is not None else drawn)
                plan, weights = os.path.join(work, "plan.kplan"), os.path.join(work, "w.st")
                steps = [[os.path.join(tools, "kiln-compile"), "--quiet", path, "--weight-format",
                          fmt, "-o", plan] + flags,
                         [os.path.join(tools, "kiln-synth"), "--config", path, "--format", fmt,
                          "--quiet", "-o", weights],
                         [os.path.join(tools, "kiln-run"), plan, "--weights", weights, "--prompt",
                          "1,2,3,4,5,6,7,8,9,10,11", "--max-new", "10", "--check-reference", path]]
                tag = f"#{i} {family} {fmt} {' '.join(flags) or '(defaults)'}"
                for step in steps:
                    done = subprocess.run(step, capture_output=True, text=True, timeout=600)
                    if done.returncode != 0 or (step is steps[2] and "PASS" not in done.stdout):
                        failures += 1
                        os.makedirs(args.out, exist_ok=True)
                        kept = os.path.join(args.out, f"seed{args.seed}-config-{i}.json")
                        shutil.copy(path, kept)
                        print(f"FAIL {tag}: {' '.join(step)}\n  {(done.stdout + done.stderr).strip()[-600:]}"
                              f"\n  config kept in {kept}", flush=True)
                        break
                else:
                    print(f"ok   {tag}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"random-configs: {failures} failure(s) over {args.count} configs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
