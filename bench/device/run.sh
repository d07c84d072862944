#!/usr/bin/env bash
# Runs on the GPU machine what prep.sh prepared: calibration, parity of the tiny models
# against the CPU reference (64 greedy tokens after a 13-token prompt, past the window),
# then 256-token decode of the 1B configs fused vs unfused with --stats, and one --profile
# per 1B plan. Writes OUT/{target.json,summary.txt,*.profile.txt}.
#
#   bash DIR/run.sh DIR OUT_DIR
set -uo pipefail
dir=${1:?usage: run.sh DIR OUT_DIR}; out=${2:?usage: run.sh DIR OUT_DIR}
B=$dir/bin; mkdir -p "$out"
prompt13=1,2,3,4,5,6,7,8,9,10,11,12,13
{
"$B/kiln-run" --list-devices
echo "== calibrate"
"$B/kiln-calibrate" --plans "$dir/cal" -o "$out/target.json" --name "${KILN_TARGET_NAME:-device}" \
  --base "$dir/cal/base.json" 2>&1 | tail -n 12
echo "== parity: tiny plans vs the CPU reference"
for p in "$dir"/plans/*-tiny*.kplan; do
  name=$(basename "$p" .kplan); cfg=${name%%.*}; fmt=$(echo "$name" | cut -d. -f2)
  "$B/kiln-synth" --config "$dir/cfg/$cfg.json" --format "$fmt" --quiet -o /tmp/w.safetensors > /dev/null
  echo "$name: $("$B/kiln-run" "$p" --weights /tmp/w.safetensors --prompt $prompt13 --max-new 64 \
      --stats --check-reference "$dir/cfg/$cfg.json" 2>&1 | \
      grep -E 'check-reference|dispatches/token|error' | tr '\n' ' ')"
done
echo "== 1B and seed-sized: 256 tokens after a 4-token prompt (estimate: dispatches, us/token from the plan's cost model)"
for c in embryo-1b dory-1b embryo-seed dory-seed; do
  for f in f16 q8_2f; do
    "$B/kiln-synth" --config "$dir/cfg/$c.json" --format "$f" --quiet -o /tmp/w.safetensors > /dev/null
    for m in cost none; do
      p="$dir/plans/$c.$f.$m.kplan"
      echo "-- $c $f fusion=$m (estimate: $(cat "$p.estimate"))"
      "$B/kiln-run" "$p" --weights /tmp/w.safetensors --prompt 1,2,3,4 --max-new 256 --stats 2>&1 | \
        grep -E "dispatches|barriers|bytes|ms/token|error"
      # Few files come back from a lent machine: f16 profiles only.
      [ "$f" = f16 ] && [ "${c%-1b}" != "$c" ] && "$B/kiln-run" "$p" --weights /tmp/w.safetensors --prompt 1,2,3,4 \
        --max-new 8 --profile > "$out/$c.$f.$m.profile.txt" 2>&1
    done
  done
done
rm -f /tmp/w.safetensors
} 2>&1 | tee "$out/summary.txt"
