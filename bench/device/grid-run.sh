#!/usr/bin/env bash
# Runs what switches-prep.sh prepared from switches-grid.txt, on the GPU machine, in
# priority order, each result written to OUT as soon as it exists (a call cut short
# still brings back what finished). Needs the tiny parity set beside it:
#   source bench/device/tiny-set.sh; tiny_set_configs ROOT DIR; tiny_set_plans ...
#   bash DIR/grid-run.sh OUT
set -uo pipefail
out=${1:?OUT}; here=$(cd "$(dirname "$0")" && pwd); b=$here/bin; t0=$(date +%s)
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv > "$out/gpu.txt" 2>&1
bench() { # model format variants...
  local c=$1 f=$2; shift 2
  "$b/kiln-synth" --config "$here/cfg/$c.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
  echo "== $c $f [$(( $(date +%s) - t0 )) s]" >> "$out/bench.txt"
  timeout 90 "$b/kiln-bench" $(for v in "$@"; do echo "$here/plans/$c.$f.$v.kplan"; done) \
    --weights /tmp/w.st -p 0 -n 64 -r 3 2>&1 | grep -E "tg64" | awk -F'|' '{print $2, $7}' >> "$out/bench.txt"
}
bench dory-1b f16 N A P4 S4 PS4 P G4
source "$here/tiny-set.sh"; tiny_set_parity "$here" > "$out/parity.txt" 2>&1; echo done >> "$out/parity.txt"
bench dory-1b q8_2f N A P4 S4 PS4
bench embryo-1b f16 N A G4 S4
bench embryo-1b q8_2f N A G4 S4
for c in dory-1b embryo-1b; do for f in f16 q8_2f; do
  "$b/kiln-synth" --config "$here/cfg/$c.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
  for v in N A; do
    echo "== $c $f $v: $(timeout 40 "$b/kiln-run" "$here/plans/$c.$f.$v.kplan" --weights /tmp/w.st --start-position 256 --prompt 1 --max-new 256 --stats --quiet 2>&1 | grep -E 'wall ms/token|decode ms/token|dispatches/token' | tr '\n' ' ')" >> "$out/wall.txt"
  done
done; done
echo "done [$(( $(date +%s) - t0 )) s]" >> "$out/bench.txt"
