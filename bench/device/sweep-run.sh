#!/usr/bin/env bash
# Runs what sweep-prep.sh prepared, on the GPU machine: for each config and format, one
# kiln-bench over A's and B's plans at positions 256 to 30,000 reached by
# kiln_session_seek (--seek), then B's per-dispatch profile at 256, 4,000 and 30,000
# (kiln-run --start-position). Writes OUT/summary.txt and OUT/profiles.txt.
#
#   bash DIR/sweep-run.sh DIR OUT_DIR
set -uo pipefail
dir=${1:?usage: sweep-run.sh DIR OUT_DIR}; out=${2:?usage: sweep-run.sh DIR OUT_DIR}
mkdir -p "$out"
bin=$dir/bin
{
cat "$dir/estimates.txt" 2>/dev/null
for c in embryo-1b-32k dory-1b-32k; do
  for f in f16 q8_2f; do
    [ -e "$dir/plans/$c.$f.B.kplan" ] || continue
    "$bin/kiln-synth" --config "$dir/cfg/$c.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
    "$bin/kiln-bench" "$dir/plans/$c.$f.A.kplan" "$dir/plans/$c.$f.B.kplan" --weights /tmp/w.st \
      -p 0 -n 64 -r 2 --positions 256,1024,4096,16384,30000 --seek --read-bandwidth 4530
    for p in 256 4000 30000; do
      { echo "==== $c $f B @$p"
        "$bin/kiln-run" "$dir/plans/$c.$f.B.kplan" --weights /tmp/w.st --prompt 1,2,3,4 \
          --start-position "$p" --max-new 16 --profile --no-weight-check 2>&1; } >> "$out/profiles.txt"
    done
  done
done
rm -f /tmp/w.st
grep -E "^====|^  total" "$out/profiles.txt"
} 2>&1 | tee "$out/summary.txt"
