#!/usr/bin/env bash
# Runs what farfield-ab-prep.sh prepared, on the GPU machine (about 5 minutes).
#   bash DIR/farfield-ab-run.sh DIR OUT_DIR
set -uo pipefail
dir=${1:?usage: farfield-ab-run.sh DIR OUT_DIR}; out=${2:?usage: farfield-ab-run.sh DIR OUT_DIR}
mkdir -p "$out"
bin=$dir/bin
source "$dir/tiny-set.sh"
tiny_set_parity "$dir" > "$out/parity.txt" 2>&1
for f in f16 q8_2f; do
  plan=$dir/plans/dory-1b-32k.$f
  "$bin/kiln-synth" --config "$dir/cfg/dory-1b-32k.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
  timeout 150 "$bin/kiln-bench" "$plan.A.kplan" "$plan.B.kplan" --weights /tmp/w.st -p 0 -n 64 -r 2 \
    --positions 256,4096,30000 --seek --read-bandwidth 4530 > "$out/sweep-$f.txt" 2>&1
  # A throwaway profile first: a plan's first profile in a session read 3.6x slower.
  "$bin/kiln-run" "$plan.B.kplan" --weights /tmp/w.st --prompt 1,2,3,4 --max-new 16 --profile \
    --no-weight-check > /dev/null 2>&1
  for p in 256 4000; do
    echo "==== B @$p"
    timeout 30 "$bin/kiln-run" "$plan.B.kplan" --weights /tmp/w.st --prompt 1,2,3,4 \
      --start-position "$p" --max-new 16 --profile --no-weight-check 2>&1
  done > "$out/profile-$f.txt"
done
cp "$dir/estimates.txt" "$out/" 2>/dev/null
rm -f /tmp/w.st
cat "$out"/parity.txt "$out"/sweep-*.txt
