#!/usr/bin/env bash
# Runs what small-kernels-ab-prep.sh prepared, on the GPU machine (about 6 minutes).
#   bash DIR/small-kernels-ab-run.sh DIR OUT_DIR
set -uo pipefail
dir=${1:?usage: small-kernels-ab-run.sh DIR OUT_DIR}; out=${2:?usage: small-kernels-ab-run.sh DIR OUT_DIR}
mkdir -p "$out"
bin=$dir/bin
source "$dir/tiny-set.sh"
start=$(date +%s)
{
  tiny_set_parity "$dir"
  timeout 60 "$bin/kiln-calibrate" --plans "$dir/cal" -o /tmp/cal.json --name probe 2>&1 | tail -1
  [ -x "$bin/vkprobe" ] && VKPROBE_BUDGET_S=20 VKPROBE_MATVEC=32768x2048 timeout 40 "$bin/vkprobe" 2>&1 |
    grep -E '^READ_BW|^DISPATCH|^SUBMIT|^MATVEC|^DEVICE'
  echo "parity and probes: $(( $(date +%s) - start )) s"
} > "$out/parity.txt" 2>&1
{
  for f in f16 q8_2f; do
    "$bin/kiln-synth" --config "$dir/cfg/embryo-1b.json" --format "$f" --quiet -o /tmp/we.st > /dev/null
    timeout 100 "$bin/kiln-bench" "$dir"/plans/embryo-1b.$f.{A,B,C}.kplan --weights /tmp/we.st \
      -p 0 -n 128 -r 3 --read-bandwidth 4530
    for s in A B; do
      echo "== kernels $f $s"
      timeout 60 "$bin/kiln-bench" kernels "$dir/plans/embryo-1b.$f.$s.kplan" --weights /tmp/we.st \
        -r 10 --position 256 --read-bandwidth 4530 > /tmp/k.txt 2>&1
      # B's whole table (the kernel table of issue 17); A's rows that B changed.
      if [ $s = B ]; then cat /tmp/k.txt; else grep -E 'head_rows|sample|cluster|^total' /tmp/k.txt; fi
    done
  done
  echo "embryo: $(( $(date +%s) - start )) s"
} > "$out/embryo.txt" 2>&1
{
  for f in f16 q8_2f; do
    "$bin/kiln-synth" --config "$dir/cfg/dory-1b-32k.json" --format "$f" --quiet -o /tmp/wd.st > /dev/null
    timeout 120 "$bin/kiln-bench" "$dir"/plans/dory-1b-32k.$f.{A,B,C}.kplan --weights /tmp/wd.st \
      -p 0 -n 64 -r 2 --positions 256,4096 --seek
    for s in A B; do
      # A throwaway profile first: a plan's first profile in a session reads slower.
      "$bin/kiln-run" "$dir/plans/dory-1b-32k.$f.$s.kplan" --weights /tmp/wd.st --prompt 1,2,3,4 \
        --max-new 8 --profile --no-weight-check > /dev/null 2>&1
      echo "== profile $f $s @4000"
      timeout 30 "$bin/kiln-run" "$dir/plans/dory-1b-32k.$f.$s.kplan" --weights /tmp/wd.st \
        --prompt 1,2,3,4 --start-position 4000 --max-new 16 --profile --no-weight-check 2>&1 |
        grep -E 'exit_test|sample|head|total|span|layers_(0|9)_attn'
    done
  done
  echo "dory: $(( $(date +%s) - start )) s"
} > "$out/dory.txt" 2>&1
rm -f /tmp/w.st /tmp/we.st /tmp/wd.st
cat "$out/parity.txt"
