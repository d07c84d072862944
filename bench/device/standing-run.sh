#!/usr/bin/env bash
# Runs what standing-prep.sh prepared, on the GPU machine, each result written to OUT as
# soon as it exists:   bash DIR/standing-run.sh OUT
set -uo pipefail
out=${1:?OUT}; here=$(cd "$(dirname "$0")" && pwd); b=$here/bin; t0=$(date +%s)
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv > "$out/gpu.txt" 2>&1
for c in embryo-1b-32k dory-1b-32k; do for f in f16 q8_2f; do
  "$b/kiln-synth" --config "$here/cfg/$c.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
  echo "== $c $f [$(( $(date +%s) - t0 )) s]" >> "$out/standing.txt"
  timeout 120 "$b/kiln-bench" "$here/plans/$c.$f.kplan" --weights /tmp/w.st -p 0 -n 64 -r 3 \
    --positions 256,1024,4096,16384,30000 --seek 2>&1 | grep -E "tg64" \
    | awk -F'|' '{print $4, $6, $7}' >> "$out/standing.txt"
  echo "== $c $f: $(timeout 60 "$b/kiln-run" "$here/plans/$c.$f.kplan" --weights /tmp/w.st \
    --start-position 256 --prompt 1 --max-new 256 --stats --quiet 2>&1 \
    | grep -E 'wall ms/token|decode ms/token|dispatches/token|submits/token' | tr '\n' ' ')" >> "$out/wall.txt"
done; done
# Issue 16's per-kernel figures: each dispatch of the f16 plans at 256 and at 30,000.
for c in embryo-1b-32k dory-1b-32k; do
  "$b/kiln-synth" --config "$here/cfg/$c.json" --format f16 --quiet -o /tmp/w.st > /dev/null
  for p in 256 30000; do
    timeout 60 "$b/kiln-run" "$here/plans/$c.f16.kplan" --weights /tmp/w.st --start-position $p \
      --prompt 1 --max-new 32 --profile --stats --quiet > "$out/profile.$c.$p.txt" 2>&1
  done
done
rm -f /tmp/w.st
# shellcheck source=tiny-set.sh
source "$here/tiny-set.sh"; tiny_set_parity "$here" > "$out/parity.txt" 2>&1; echo done >> "$out/parity.txt"
echo "done [$(( $(date +%s) - t0 )) s]" >> "$out/standing.txt"
