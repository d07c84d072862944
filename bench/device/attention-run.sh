#!/usr/bin/env bash
# Runs what attention-prep.sh prepared, on the GPU machine, in priority order, each
# result written to OUT as soon as it exists (a call cut short still brings back what
# finished):   bash DIR/attention-run.sh OUT
set -uo pipefail
out=${1:?OUT}; here=$(cd "$(dirname "$0")" && pwd); b=$here/bin; t0=$(date +%s)
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv > "$out/gpu.txt" 2>&1
variants=$(awk '{print $1}' "$here/variants.txt")
stamp() { echo "== $* [$(( $(date +%s) - t0 )) s]"; }
sweep() { # model format positions plans...
  local c=$1 f=$2 at=$3; shift 3
  "$b/kiln-synth" --config "$here/cfg/$c.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
  stamp "$c $f" >> "$out/attention.txt"
  timeout 150 "$b/kiln-bench" $(for v in "$@"; do echo "$here/plans/$c.$f.$v.kplan"; done) \
    --weights /tmp/w.st -p 0 -n 64 -r 3 --positions "$at" --seek 2>&1 | grep -E "tg64" \
    | awk -F'|' '{print $2, $4, $6, $7}' >> "$out/attention.txt"
}
profile() { # model format variants...
  local c=$1 f=$2; shift 2
  "$b/kiln-synth" --config "$here/cfg/$c.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
  for v in "$@"; do for at in 4000 256; do
    stamp "$c $f $v @$at" >> "$out/profile.txt"
    timeout 60 "$b/kiln-run" "$here/plans/$c.$f.$v.kplan" --weights /tmp/w.st --start-position $at \
      --prompt 1 --max-new 16 --profile --quiet 2>&1 \
      | grep -E "scores|attention|far_push|total|GPU|span" | head -40 >> "$out/profile.txt"
  done; done
}
# shellcheck disable=SC2086 # the variant letters are words
sweep dory-1b-32k f16 256,4096,30000 $variants
# shellcheck disable=SC2086
sweep embryo-1b-32k f16 256,4096,30000 $variants
profile dory-1b-32k f16 A K
profile embryo-1b-32k f16 A K
source "$here/tiny-set.sh"; tiny_set_parity "$here" > "$out/parity.txt" 2>&1; echo done >> "$out/parity.txt"
sweep dory-1b-32k q8_2f 256,4096 A K
sweep embryo-1b-32k q8_2f 256,4096 A K
sweep dory-1b-32k f16 1024,16384 A K
sweep embryo-1b-32k f16 1024,16384 A K
stamp done >> "$out/attention.txt"
