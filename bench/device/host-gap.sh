#!/usr/bin/env bash
# Where a decode call's host time goes, on the GPU machine: for each 1B plan in DIR/plans,
# 256 tokens with --stats one submission a token (blocking fence wait, then polling), then
# many greedy tokens a submission (--tokens-per-submit 16 and 64), a --profile run, and the
# decode program recorded 16 times a submit (KILN_BENCH_DECODE_REPEAT: the GPU's time per
# token with no host between tokens; its tokens are meaningless). Parity first: the tiny
# configs against the CPU reference, and each 1B plan's tokens one a submission against
# 16 a submission (compare_runs.py).
# DIR holds bin/{kiln-run,kiln-synth}, plans/<config>.<format>.kplan, cfg/<config>.json,
# tiny/<config>.<format>.kplan and compare_runs.py.
#
#   bash host-gap.sh DIR OUT_DIR
set -uo pipefail
dir=${1:?usage: host-gap.sh DIR OUT_DIR}; out=${2:?usage: host-gap.sh DIR OUT_DIR}
mkdir -p "$out"
run() { "$dir/bin/kiln-run" "$@" 2>&1; }
keep='ms/token|ms/call|submits/token|dispatches/token|error'
weights() { # config format -> path
  local w=/tmp/w.$1.$2
  [ -e "$w" ] || "$dir/bin/kiln-synth" --config "$dir/cfg/$1.json" --format "$2" --quiet -o "$w" > /dev/null
  echo "$w"
}
{
[ -x "$dir/vkprobe" ] && VKPROBE_BUDGET_S=${VKPROBE_BUDGET_S:-20} "$dir/vkprobe" 2>&1 | grep -E "READ_BW|DISPATCH|SUBMIT" | head -6
echo "== parity"
for p in "$dir"/tiny/*.kplan; do
  name=$(basename "$p" .kplan); cfg=${name%%.*}; fmt=${name#*.}
  w=$(weights "$cfg" "$fmt")
  echo "$name: $(run "$p" --weights "$w" --prompt 1,2,3,4,5,6,7,8,9,10,11,12,13 --max-new 64 --check-reference "$dir/cfg/$cfg.json" | grep -E 'check-reference:.*(PASS|FAIL)|error')"
  run "$p" --weights "$w" --prompt 1,2,3 --max-new 40 --tokens-per-submit 1 --print-logprobs > /tmp/one.txt
  run "$p" --weights "$w" --prompt 1,2,3 --max-new 40 --tokens-per-submit 16 --print-logprobs > /tmp/many.txt
  echo "$name 16/submit: $(python3 "$dir/compare_runs.py" /tmp/one.txt /tmp/many.txt 1e-4 2>&1)"
done
for p in "$dir"/plans/*.kplan; do
  name=$(basename "$p" .kplan); cfg=${name%%.*}; fmt=${name#*.}; fmt=${fmt%%.*}
  w=$(weights "$cfg" "$fmt")
  run "$p" --weights "$w" --prompt 1,2,3,4 --max-new 64 --tokens-per-submit 1 --print-logprobs > /tmp/one.txt
  run "$p" --weights "$w" --prompt 1,2,3,4 --max-new 64 --tokens-per-submit 16 --print-logprobs > /tmp/many.txt
  echo "$name 16/submit: $(python3 "$dir/compare_runs.py" /tmp/one.txt /tmp/many.txt 1e-3 2>&1)"
done
for p in "$dir"/plans/*.kplan; do
  name=$(basename "$p" .kplan); cfg=${name%%.*}; fmt=${name#*.}; fmt=${fmt%%.*}
  w=$(weights "$cfg" "$fmt")
  echo "== $name"
  echo "block:   $(run "$p" --weights "$w" --prompt 1,2,3,4 --max-new 256 --stats --tokens-per-submit 1 --wait block | grep -E "$keep" | tr '\n' ' ')"
  echo "poll:    $(run "$p" --weights "$w" --prompt 1,2,3,4 --max-new 256 --stats --tokens-per-submit 1 --wait poll | grep -E "$keep" | tr '\n' ' ')"
  for k in 16 64; do
    echo "tps $k: $(run "$p" --weights "$w" --prompt 1,2,3,4 --max-new 257 --stats --tokens-per-submit $k | grep -E "$keep" | tr '\n' ' ')"
  done
  echo "repeat 16: $(KILN_BENCH_DECODE_REPEAT=16 run "$p" --weights "$w" --prompt 1,2,3,4 --max-new 64 --stats --tokens-per-submit 1 | grep -E "$keep" | tr '\n' ' ')"
  { echo "==== $name"; run "$p" --weights "$w" --prompt 1,2,3,4 --max-new 16 --profile; } >> "$out/profiles.txt"
done
rm -f /tmp/w.*
} 2>&1 | tee "$out/summary.txt"
