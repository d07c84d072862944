#!/usr/bin/env bash
# Runs what matvec-items-prep.sh prepared, on the GPU machine: vkprobe's plain
# mat-vecs on the 1B shapes, then per config and format one kiln-bench over all its
# plans (decode tokens/s at the start), and each kernel alone (kiln-bench kernels)
# for every plan. Writes OUT/summary.txt and OUT/kernels-*.md.
#
#   [ITEMS_CONFIGS="embryo-1b ..."] [ITEMS_FORMATS="f16 ..."] [ITEMS_KERNELS="wg sg4 ..."] [ITEMS_PROBE=0] \
#     bash DIR/matvec-items-run.sh DIR OUT
set -uo pipefail
dir=${1:?usage: matvec-items-run.sh DIR OUT_DIR}; out=${2:?usage: matvec-items-run.sh DIR OUT_DIR}
mkdir -p "$out"
bin=$dir/bin
{
# ITEMS_PROBE=0 skips vkprobe (a second run in the same session).
if [ -x "$bin/vkprobe" ] && [ "${ITEMS_PROBE:-1}" != 0 ]; then
  VKPROBE_BUDGET_S=40 VKPROBE_MATVEC=5632x2048,2048x5632,2048x2048,32768x2048 "$bin/vkprobe" \
    2>&1 | grep -E "READ_BW|DISPATCH|MATVEC|matvec" | head -40
fi
for c in ${ITEMS_CONFIGS:-embryo-1b dory-1b}; do
  for f in ${ITEMS_FORMATS:-f16 q8_2f}; do
    plans=$(ls "$dir"/plans/$c.$f.*.kplan 2>/dev/null) || continue
    "$bin/kiln-synth" --config "$dir/cfg/$c.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
    echo "==== $c $f: decode"
    "$bin/kiln-bench" $plans --weights /tmp/w.st -p 0 -n 128 -r 3 --read-bandwidth 4530
    for p in $plans; do
      n=$(basename "$p" .kplan)
      # ITEMS_KERNELS: the plan variants (wg, sg4, ...) to run kernel by kernel.
      [ -n "${ITEMS_KERNELS:-}" ] && ! [[ " $ITEMS_KERNELS " == *" ${n##*.} "* ]] && continue
      "$bin/kiln-bench" kernels "$p" --weights /tmp/w.st -r 10 --read-bandwidth 4530 \
        > "$out/kernels-$n.md" 2>&1
      echo "==== $n kernels: $(grep -iE "sum|total" "$out/kernels-$n.md" | tail -1)"
    done
  done
done
rm -f /tmp/w.st
} 2>&1 | tee "$out/summary.txt"
