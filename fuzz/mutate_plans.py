#!/usr/bin/env python3
"""A bounded mutation campaign over whole plans (issue 12): each mutant of a tiny plan
(1-4 random bytes changed, or a random 4-byte field set to an extreme value) runs through
kiln-run end to end on the local Vulkan device. Every outcome must be a clean error
(exit 1 with a 'kiln-run: error:' or status line) or a run that finishes; a signal, a
sanitizer report or a timeout is a finding. Prints the tally; exits 1 on any finding.

    fuzz/mutate_plans.py --kiln-run build/bin/kiln-run --plan P.kplan --weights W \\
        [--count 300] [--seed 1] [--timeout 60] [--keep DIR]
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

EXTREMES = [0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0x10000, 0x40000000]


def mutate(data, rng):
    data = bytearray(data)
    if rng.random() < 0.5:
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    else:
        at = rng.randrange(0, len(data) - 4) & ~3
        data[at:at + 4] = rng.choice(EXTREMES).to_bytes(4, "little")
    return bytes(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kiln-run", required=True)
    parser.add_argument("--plan", required=True)
    parser.add_argument("--weights", required=True)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--keep", help="folder for the mutants that gave a finding")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    original = open(args.plan, "rb").read()
    tally = {"clean error": 0, "ran": 0, "crash": 0, "timeout": 0, "sanitizer": 0}
    findings = []
    first_raw = None  # the first message that echoed bytes that are not UTF-8
    with tempfile.TemporaryDirectory() as work:
        for i in range(args.count):
            path = os.path.join(work, "m%d.kplan" % i)
            with open(path, "wb") as f:
                f.write(mutate(original, rng))
            try:
                done = subprocess.run(
                    [args.kiln_run, path, "--weights", args.weights, "--prompt", "1,2,3",
                     "--max-new", "8", "--quiet", "--no-weight-check"],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                    timeout=args.timeout)
                err = done.stderr
                if "\ufffd" in err and first_raw is None:
                    first_raw = err.strip().splitlines()[-1][:200]
                if "Sanitizer" in err or "runtime error:" in err:
                    kind = "sanitizer"
                elif done.returncode < 0:
                    kind = "crash"
                elif done.returncode == 0:
                    kind = "ran"
                elif done.returncode == 1 and "error" in err.lower():
                    kind = "clean error"
                else:
                    kind = "crash"
            except subprocess.TimeoutExpired:
                kind = "timeout"
            tally[kind] += 1
            if kind in ("crash", "timeout", "sanitizer"):
                findings.append((i, kind))
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    shutil.copy(path, os.path.join(args.keep, "m%d.%s.kplan" % (i, kind)))
    print("mutants: %d  " % args.count + "  ".join("%s: %d" % kv for kv in tally.items()))
    if first_raw:
        print("note: a message echoed non-UTF-8 bytes from the plan: %r" % first_raw)
    for i, kind in findings:
        print("finding: mutant %d: %s" % (i, kind))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
