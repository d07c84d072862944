#!/usr/bin/env bash
# A/B of two builds' plans at the start of a session and after a long prompt, on the GPU
# machine. DIR/A and DIR/B each hold bin/{kiln-run,kiln-synth} and plans/<config>.<format>[.tag].kplan;
# DIR/cfg/<config>.json. For every plan: 256 greedy tokens after a 4-token prompt, 16 a
# submission; 64 tokens after a P-token prompt (default 1024: a full embryo-1b anchor
# window); and a --profile over that long prompt (per-dispatch GPU time averaged over
# every call, positions 0..P+8).
#
#   bash position-ab.sh DIR OUT_DIR [P]
set -uo pipefail
dir=${1:?usage: position-ab.sh DIR OUT_DIR [P]}; out=${2:?usage: position-ab.sh DIR OUT_DIR [P]}
long=${3:-1024}
mkdir -p "$out"
prompt=$(seq -s, 1 "$long")
keep='decode ms/token|wall ms/token|submits/token|error'
{
for side in A B; do
  for p in "$dir/$side"/plans/*.kplan; do
    name=$(basename "$p" .kplan); cfg=${name%%.*}; fmt=${name#*.}; fmt=${fmt%%.*}
    w=/tmp/w.$cfg.$fmt
    [ -e "$w" ] || "$dir/B/bin/kiln-synth" --config "$dir/cfg/$cfg.json" --format "$fmt" --quiet -o "$w" > /dev/null
    run="$dir/$side/bin/kiln-run"
    echo "== $side/$name"
    echo "p4:     $("$run" "$p" --weights "$w" --prompt 1,2,3,4 --max-new 257 --stats 2>&1 | grep -E "$keep" | tr '\n' ' ')"
    echo "p$long: $("$run" "$p" --weights "$w" --prompt "$prompt" --max-new 65 --stats 2>&1 | grep -E "$keep" | tr '\n' ' ')"
    { echo "==== $side/$name (prompt $long)"; "$run" "$p" --weights "$w" --prompt "$prompt" --max-new 8 --profile 2>&1; } >> "$out/profiles.txt"
  done
done
rm -f /tmp/w.*
} 2>&1 | tee "$out/summary.txt"
