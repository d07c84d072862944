#!/usr/bin/env bash
# Runs what switches-prep.sh prepared, on the GPU machine (about 3 minutes):
#   [KERNEL_VARIANTS="A D B E"] [PROFILE_VARIANTS="A T"] bash DIR/switches-run.sh DIR OUT_DIR
# PROFILE_VARIANTS: dory-1b f16 plans whose kiln-run --profile (64 tokens) goes to
# OUT/profile.LETTER.txt, dispatch by dispatch (a tail against the two kernels apart).
set -uo pipefail
dir=${1:?usage: switches-run.sh DIR OUT_DIR}; out=${2:?usage: switches-run.sh DIR OUT_DIR}
mkdir -p "$out"
b=$dir/bin; t0=$(date +%s)
letters=$(awk '{print $1}' "$dir/variants.txt")
for c in embryo-1b dory-1b; do
  for f in f16 q8_2f; do
    "$b/kiln-synth" --config "$dir/cfg/$c.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
    echo "== $c $f [$(( $(date +%s) - t0 )) s]"
    # shellcheck disable=SC2046 # one plan a letter
    timeout 150 "$b/kiln-bench" $(for v in $letters; do echo "$dir/plans/$c.$f.$v.kplan"; done) \
      --weights /tmp/w.st -p 0 -n 64 -r 3 2>&1 | grep -E "tg64" | awk -F'|' '{print $2, $7}'
  done
done | tee "$out/switches.txt"
for f in f16 q8_2f; do
  "$b/kiln-synth" --config "$dir/cfg/embryo-1b.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
  for v in ${KERNEL_VARIANTS:-A D B E}; do
    echo "== kernels embryo-1b $f $v"
    timeout 25 "$b/kiln-bench" kernels "$dir/plans/embryo-1b.$f.$v.kplan" --weights /tmp/w.st \
      -r 10 --position 256 --flush-mb 256 --read-bandwidth 4530 2>&1 | grep -E '^\| [^|]*\| layers_(0|3)_|head_rows|^total'
  done
done > "$out/kernels.txt" 2>&1
if [ -n "${PROFILE_VARIANTS:-}" ]; then
  "$b/kiln-synth" --config "$dir/cfg/dory-1b.json" --format f16 --quiet -o /tmp/w.st > /dev/null
  # A throwaway profile first: the first profile after the benches read 36.1 us for a
  # gate‖up that the last one read at 21.5 (2026-12-07, H100; sweep-run.sh saw 3.6x).
  timeout 60 "$b/kiln-run" "$dir/plans/dory-1b.f16.A.kplan" --weights /tmp/w.st --prompt 1,2,3 \
    --max-new 64 --profile --quiet > /dev/null 2>&1
  for v in $PROFILE_VARIANTS; do
    timeout 60 "$b/kiln-run" "$dir/plans/dory-1b.f16.$v.kplan" --weights /tmp/w.st --prompt 1,2,3 \
      --max-new 64 --profile --quiet > "$out/profile.$v.txt" 2>&1
  done
fi
rm -f /tmp/w.st
echo "done [$(( $(date +%s) - t0 )) s]"
