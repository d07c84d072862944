#!/usr/bin/env python3
"""Fits a cost target's figures to measured per-dispatch profiles (issue 16).

For each (stage module, profile, position) the plan's own dispatches are priced again
under a candidate target descriptor (kiln-opt --kiln-fuse-dispatches with fuse=false:
the estimate only, the dispatches as compiled) and compared, dispatch by dispatch, with
`kiln-run --profile`'s measured microseconds. A coordinate search over the fields named
by --fit minimises the squared log error per dispatch; the totals are printed before and
after, and the fitted descriptor is written with --out.

  fit_profile.py --kiln-opt build/bin/kiln-opt --target targets/h200.json \
      --case STAGES.mlir PROFILE.txt HEADER POSITION [--case ...] \
      [--fit boundary_us,read_bandwidth_gbps,...] [--out fitted.json]

STAGES.mlir is `kiln-compile CONFIG --emit=stages` of the measured plan; HEADER is the
line that starts the plan's profile in PROFILE.txt (e.g. "==== embryo-1b-32k f16 B @256").
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile


def profile_rows(path, header):
    lines = open(path).read().split("\n")
    start = lines.index(header)
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("===="):
            break
        m = re.match(r"\s+(\S+)\s+([\d.]+)\s+([-\d.]+)\s*$", line)
        if m and m.group(1) != "total":
            rows.append((m.group(1), float(m.group(2))))
        if line.strip().startswith("total"):
            break
    return rows


def estimates(kiln_opt, stages, target, position):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(target, f)
        path = f.name
    try:
        out = subprocess.run(
            [kiln_opt, stages, "--kiln-fuse-dispatches=fuse=false reorder=false emit-report=true "
             f"target-file={path} position={position}"],
            capture_output=True, text=True, check=True).stderr
    finally:
        os.unlink(path)
    rows = []
    for line in out.split("\n"):
        m = re.match(r"\s+#\d+\s+([-\d.]+) us\s+(\S+)", line)
        if m:
            rows.append((m.group(2), float(m.group(1))))
    return rows


def error(kiln_opt, cases, target, report=False):
    total = 0.0
    for stages, measured, position, name in cases:
        est = estimates(kiln_opt, stages, target, position)
        # The same dispatches in the same order (a renamed kernel may differ in name).
        same = sum(a == b for (a, _), (b, _) in zip(est, measured))
        if len(est) != len(measured) or same < 0.9 * len(est):
            sys.exit(f"{name}: the stage module's dispatches are not the profile's "
                     f"({len(est)} against {len(measured)}, {same} names equal)")
        for (_, e), (_, m) in zip(est, measured):
            total += math.log(max(e, 0.1) / m) ** 2
        if report:
            se, sm = sum(e for _, e in est), sum(m for _, m in measured)
            print(f"  {name}: estimate {se:9.1f} us, measured {sm:9.1f} us "
                  f"({100 * (se - sm) / sm:+.1f}%)")
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln-opt", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--case", nargs=4, action="append", required=True,
                    metavar=("STAGES", "PROFILE", "HEADER", "POSITION"))
    ap.add_argument("--fit", default="")
    ap.add_argument("--out")
    args = ap.parse_args()
    target = json.load(open(args.target))
    cases = [(s, profile_rows(p, h), int(pos), h.strip("= ")) for s, p, h, pos in args.case]
    print("before:")
    base = error(args.kiln_opt, cases, target, report=True)
    fields = [f for f in args.fit.split(",") if f]
    best = base
    for sweep in range(4):
        for field in fields:
            for factor in (2.0, 0.5, 1.25, 0.8, 1.06, 0.94):
                trial = dict(target)
                trial[field] = target[field] * factor if target[field] else factor - 0.5
                try:
                    e = error(args.kiln_opt, cases, trial)
                except subprocess.CalledProcessError:
                    continue
                if e < best:
                    best, target = e, trial
    print("after:" if fields else "")
    if fields:
        error(args.kiln_opt, cases, target, report=True)
        for field in fields:
            print(f"  {field} = {target[field]:.4g}")
        print(f"  squared log error per dispatch: {base:.2f} -> {best:.2f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(target, f, indent=2, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
