"""kiln-run --stop-token checks. `pick FULL K`: prints token K of a full run's token
line (the stop token to ask for). `check FULL STOPPED`: the stopped run's tokens are the
full run's up to and including the first occurrence of the stopped run's last token.
Exit 1 naming the difference."""
import sys


def tokens(path):
    return [int(t) for t in open(path).read().split("\n")[0].split(",") if t]


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "pick":
        print(tokens(sys.argv[2])[int(sys.argv[3])])
        return
    if len(sys.argv) != 4 or sys.argv[1] != "check":
        sys.exit("usage: stop_prefix.py pick FULL K | check FULL STOPPED")
    full, stopped = tokens(sys.argv[2]), tokens(sys.argv[3])
    if not stopped:
        sys.exit("the stopped run generated nothing")
    stop = stopped[-1]
    if stop not in full:
        sys.exit(f"stop token {stop} is not in the full run")
    expected = full[: full.index(stop) + 1]
    if stopped != expected:
        sys.exit(f"stopped run:\n  {stopped}\nexpected the full run's prefix:\n  {expected}")
    print(f"stopped after {len(stopped)} of {len(full)} tokens at token {stop}")


main()
