#!/usr/bin/env bash
# Where a decode call's host time goes, on the GPU machine: for each 1B plan in DIR/plans,
# 256 tokens with --stats (blocking fence wait, then polling with --spin-wait), a --profile
# run, and the decode program recorded K times per submit (KILN_BENCH_DECODE_REPEAT: the
# GPU's time per token with no host between tokens; its tokens are meaningless).
# DIR holds bin/{kiln-run,kiln-synth}, plans/<config>.<format>.kplan, cfg/<config>.json.
#
#   bash host-gap.sh DIR OUT_DIR
set -uo pipefail
dir=${1:?usage: host-gap.sh DIR OUT_DIR}; out=${2:?usage: host-gap.sh DIR OUT_DIR}
mkdir -p "$out"
run() { "$dir/bin/kiln-run" "$@" 2>&1; }
keep='ms/token|ms/call|dispatches/token|error'
{
[ -x "$dir/vkprobe" ] && VKPROBE_BUDGET_S=${VKPROBE_BUDGET_S:-20} "$dir/vkprobe" 2>&1 | grep -E "READ_BW|DISPATCH|SUBMIT" | head -6
for p in "$dir"/plans/*.kplan; do
  name=$(basename "$p" .kplan); cfg=${name%%.*}; fmt=${name#*.}; fmt=${fmt%%.*}
  [ -e "/tmp/w.$cfg.$fmt" ] || "$dir/bin/kiln-synth" --config "$dir/cfg/$cfg.json" --format "$fmt" --quiet -o "/tmp/w.$cfg.$fmt" > /dev/null
  w=/tmp/w.$cfg.$fmt
  echo "== $name"
  echo "block: $(run "$p" --weights "$w" --prompt 1,2,3,4 --max-new 256 --stats | grep -E "$keep" | tr '\n' ' ')"
  echo "spin:  $(run "$p" --weights "$w" --prompt 1,2,3,4 --max-new 256 --stats --spin-wait | grep -E "$keep" | tr '\n' ' ')"
  for k in 4 16; do
    echo "repeat $k: $(KILN_BENCH_DECODE_REPEAT=$k run "$p" --weights "$w" --prompt 1,2,3,4 --max-new 64 --stats | grep -E "$keep" | tr '\n' ' ')"
  done
  { echo "==== $name"; run "$p" --weights "$w" --prompt 1,2,3,4 --max-new 16 --profile; } >> "$out/profiles.txt"
done
rm -f /tmp/w.*
} 2>&1 | tee "$out/summary.txt"
