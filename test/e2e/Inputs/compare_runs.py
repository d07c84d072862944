"""Compares two kiln-run outputs printed with --print-logprobs: the same tokens in
the same order, and every log-probability within a tolerance. Exit 1 naming the
first difference."""
import sys


def read(path):
    lines = open(path).read().split("\n")
    tokens = lines[0]
    logprobs = []
    for line in lines[1:]:
        parts = line.split()
        if len(parts) == 4 and parts[0] == "token" and parts[2] == "logprob":
            logprobs.append((int(parts[1]), float(parts[3])))
    return tokens, logprobs


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: compare_runs.py A B TOLERANCE")
    (ta, la), (tb, lb) = read(sys.argv[1]), read(sys.argv[2])
    tolerance = float(sys.argv[3])
    if ta != tb:
        sys.exit(f"tokens differ:\n  {ta}\n  {tb}")
    if len(la) != len(lb) or not la:
        sys.exit(f"{len(la)} against {len(lb)} log-probabilities")
    worst = 0.0
    for step, ((a, pa), (b, pb)) in enumerate(zip(la, lb)):
        if a != b:
            sys.exit(f"step {step}: token {a} against {b}")
        worst = max(worst, abs(pa - pb))
        if abs(pa - pb) > tolerance:
            sys.exit(f"step {step}: log-probability {pa} against {pb}")
    print(f"runs agree: {len(la)} tokens, max log-prob difference {worst:.3g}")


main()
