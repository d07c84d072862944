#!/usr/bin/env python3
"""A bounded mutation campaign over a stage module's contract attributes (issue 12):
each mutant of test/Target/Plan/Inputs/tiny-head.mlir changes 1-3 integers of the
#stage.buffer / #stage.tensor / #stage.readback / ... attributes to extreme values,
drops a field, or swaps a kind or a plan name, then runs through kiln-compile
--from-stages (best a sanitizer build: scripts/test.sh's compiler-fuzz/bin). Every
outcome must be a clean error (exit 1 with 'error:', no plan file left) or a compiled
plan; a signal, a sanitizer report or a timeout is a finding. Prints the tally; exits 1
on any finding.

    fuzz/mutate_stage_modules.py --kiln-compile build/compiler-fuzz/bin/kiln-compile \\
        [--count 150] [--seed 1] [--timeout 60]
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

EXTREMES = ['-1', '0', '1', '3', '255', '256', '4294967295', '4294967296', '2147483647',
            '-2147483648', '9223372036854775807', '-9223372036854775808',
            '99999999999999999999', '1e9']
NUMBER = r'(?<![\w.])-?\d+(?![\w.])'


def mutate(head, rng):
    kind = rng.random()
    numbers = list(re.finditer(NUMBER, head))
    if kind < 0.6 and numbers:
        for _ in range(rng.randint(1, 3)):
            m = rng.choice(list(re.finditer(NUMBER, head)))
            head = head[:m.start()] + rng.choice(EXTREMES) + head[m.end():]
    elif kind < 0.8:
        pairs = list(re.finditer(r'\w+ = ("[^"]*"|\[[^\]]*\]|-?\d+|\w+), ', head))
        if pairs:
            m = rng.choice(pairs)
            head = head[:m.start()] + head[m.end():]
    else:
        head = head.replace(
            rng.choice(['kind = weight', 'kind = scratch', 'kind = state', '"F16"', '"F32"',
                        '"Logits"', '"PositionModN"']),
            rng.choice(['kind = params', 'kind = readback', 'kind = bogus', '"F64"', '""',
                        '"X"']), 1)
    return head


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--kiln-compile', required=True)
    ap.add_argument('--module', default=os.path.join(root, 'test/Target/Plan/Inputs/tiny-head.mlir'))
    ap.add_argument('--count', type=int, default=150)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--timeout', type=int, default=60)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    src = open(args.module).read()
    # The contract attributes sit in the func's signature.
    start = src.index('func.func @decode(')
    end = src.index('{\n    stage.dispatch', start)
    env = dict(os.environ,
               ASAN_OPTIONS='detect_leaks=0:detect_container_overflow=0:allow_user_poisoning=0')
    tally = {'compiled': 0, 'error': 0, 'crash': 0, 'hang': 0, 'unclean': 0}
    with tempfile.TemporaryDirectory() as work:
        module = os.path.join(work, 'm.mlir')
        plan = os.path.join(work, 'm.kplan')
        for i in range(args.count):
            with open(module, 'w') as f:
                f.write(src[:start] + mutate(src[start:end], rng) + src[end:])
            if os.path.exists(plan):
                os.remove(plan)
            try:
                r = subprocess.run([args.kiln_compile, '--quiet', '--from-stages', module, '-o', plan],
                                   capture_output=True, text=True, timeout=args.timeout, env=env)
            except subprocess.TimeoutExpired:
                tally['hang'] += 1
                print('hang: mutant %d' % i)
                continue
            if 'Sanitizer' in r.stderr or 'runtime error' in r.stderr or r.returncode not in (0, 1):
                tally['crash'] += 1
                print('crash: mutant %d:\n%s' % (i, r.stderr[-1500:]))
            elif r.returncode == 0:
                tally['compiled'] += 1
            elif 'error' in r.stderr and not os.path.exists(plan):
                tally['error'] += 1
            else:
                tally['unclean'] += 1
                print('unclean failure: mutant %d:\n%s' % (i, r.stderr[-1500:]))
    print('mutate_stage_modules: %d mutants, %s' % (args.count, tally))
    return 1 if tally['crash'] or tally['hang'] or tally['unclean'] else 0


if __name__ == '__main__':
    sys.exit(main())
