#!/usr/bin/env bash
# Runs what vector-activations-prep.sh prepared, on the GPU machine (about 4 minutes).
#   [PLANS="A B"] [KERNELS="A B"] bash DIR/vector-activations-run.sh DIR OUT_DIR
# PLANS: the plan letters to compare (each kiln-bench run takes them all);
# KERNELS: the embryo-1b plans whose kernels run alone (empty: none); DORY_PLANS: dory-1b-32k's
# (default PLANS); FORMATS: the weight formats to run (default "f16 q8_2f"); PROBE=0 skips
# vkprobe (a later call of the same session); DORY_KERNELS: dory-1b-32k's plans whose
# kernels run alone (default none); KERNEL_POSITIONS: the positions those kernels run at
# (default 256); KERNEL_FLUSHES: the --flush-mb values each kernel table runs with
# (default 256; 0 = caches warm: what a mat-vec costs with its weights in L2).
set -uo pipefail
dir=${1:?usage: vector-activations-run.sh DIR OUT_DIR}; out=${2:?usage: vector-activations-run.sh DIR OUT_DIR}
plans=${PLANS:-A B}; kernels=${KERNELS-A B}; dory_plans=${DORY_PLANS:-$plans}
formats=${FORMATS:-f16 q8_2f}
mkdir -p "$out"
bin=$dir/bin
source "$dir/tiny-set.sh"
start=$(date +%s)
{
  tiny_set_parity "$dir"
  [ "${PROBE:-1}" != 0 ] && [ -x "$bin/vkprobe" ] && VKPROBE_BUDGET_S=40 VKPROBE_MATVEC=2048x2048,6144x2048,5632x2048,2048x5632,32768x2048 \
    timeout 60 "$bin/vkprobe" 2>&1 | grep -E '^READ_BW|^DISPATCH barrier|^MATVEC|^DEVICE'
  echo "parity and probes: $(( $(date +%s) - start )) s"
} > "$out/parity.txt" 2>&1
list() { for s in ${3:-$plans}; do echo "$dir/plans/$1.$2.$s.kplan"; done; }
{
  for f in $formats; do
    "$bin/kiln-synth" --config "$dir/cfg/embryo-1b.json" --format "$f" --quiet -o /tmp/we.st > /dev/null
    timeout 200 "$bin/kiln-bench" $(list embryo-1b $f) --weights /tmp/we.st \
      -p 0 -n 128 -r 3 --read-bandwidth 4530
    for s in $kernels; do
      for m in ${KERNEL_FLUSHES:-256}; do
        echo "== kernels $f $s flush $m MiB"
        timeout 60 "$bin/kiln-bench" kernels "$dir/plans/embryo-1b.$f.$s.kplan" --weights /tmp/we.st \
          -r 10 --position 256 --flush-mb "$m" --read-bandwidth 4530 | grep -E 'layers_(0|3|7)_|head_rows|^total'
      done
    done
  done
  echo "embryo: $(( $(date +%s) - start )) s"
} > "$out/embryo.txt" 2>&1
{
  for f in $formats; do
    "$bin/kiln-synth" --config "$dir/cfg/dory-1b-32k.json" --format "$f" --quiet -o /tmp/wd.st > /dev/null
    timeout 150 "$bin/kiln-bench" $(list dory-1b-32k $f "$dory_plans") --weights /tmp/wd.st \
      -p 0 -n 64 -r 2 ${DORY_POSITIONS:+--positions $DORY_POSITIONS --seek}
    for s in ${DORY_KERNELS:-}; do
      for p in ${KERNEL_POSITIONS:-256}; do
        for m in ${KERNEL_FLUSHES:-256}; do
          echo "== kernels $f $s @$p flush $m MiB"
          timeout 90 "$bin/kiln-bench" kernels "$dir/plans/dory-1b-32k.$f.$s.kplan" --weights /tmp/wd.st \
            -r 10 --position "$p" --flush-mb "$m" --read-bandwidth 4530 | grep -E 'layers_(0|9)_|head|exit|^total'
        done
      done
    done
  done
  echo "dory: $(( $(date +%s) - start )) s"
} > "$out/dory.txt" 2>&1
rm -f /tmp/w.st /tmp/we.st /tmp/wd.st
cat "$out/parity.txt"
