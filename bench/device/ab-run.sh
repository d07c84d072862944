#!/usr/bin/env bash
# Runs what ab-prep.sh prepared, on the GPU machine: vkprobe, tiny parity of B against
# the CPU reference, then for each 1B plan of A and B 256 tokens with --stats and a
# --profile run (per-dispatch GPU times). Writes OUT/summary.txt and OUT/profiles.txt.
#
#   bash DIR/ab-run.sh DIR OUT_DIR
set -uo pipefail
dir=${1:?usage: ab-run.sh DIR OUT_DIR}; out=${2:?usage: ab-run.sh DIR OUT_DIR}
mkdir -p "$out"
prompt13=1,2,3,4,5,6,7,8,9,10,11,12,13
{
[ -x "$dir/vkprobe" ] && VKPROBE_BUDGET_S=${VKPROBE_BUDGET_S:-25} "$dir/vkprobe" 2>&1 | grep -E "READ_BW|DISPATCH|SUBMIT|MATVEC" | head -12
echo "== parity (B): tiny plans vs the CPU reference"
for p in "$dir"/B/plans/*.tiny.kplan; do
  name=$(basename "$p" .tiny.kplan); cfg=${name%%.*}; fmt=${name#*.}
  "$dir/B/bin/kiln-synth" --config "$dir/cfg/$cfg.json" --format "$fmt" --quiet -o /tmp/w.st > /dev/null
  echo "$name: $("$dir/B/bin/kiln-run" "$p" --weights /tmp/w.st --prompt $prompt13 --max-new 64 \
      --stats --check-reference "$dir/cfg/$cfg.json" 2>&1 | grep -E 'check-reference:.*(PASS|FAIL)|dispatches/token|error' | tr '\n' ' ')"
done
echo "== 1B: 256 tokens after a 4-token prompt"
for c in embryo-1b dory-1b; do
  for f in f16 q8_2f; do
    "$dir/B/bin/kiln-synth" --config "$dir/cfg/$c.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
    for side in A B; do
      for p in "$dir/$side/plans/$c.$f".*kplan; do
        [ -e "$p" ] || continue
        tag=$side/$(basename "$p" .kplan)
        echo "-- $tag: $("$dir/$side/bin/kiln-run" "$p" --weights /tmp/w.st --prompt 1,2,3,4 --max-new 256 --stats 2>&1 | \
          grep -E "dispatches/token|barriers/token|ms/token|error" | tr '\n' ' ')"
        case "$tag" in */*.r*) ;; *)
          { echo "==== $tag"; "$dir/$side/bin/kiln-run" "$p" --weights /tmp/w.st --prompt 1,2,3,4 \
            --max-new 8 --profile 2>&1; } >> "$out/profiles.txt" ;;
        esac
      done
    done
  done
done
rm -f /tmp/w.st
} 2>&1 | tee "$out/summary.txt"
