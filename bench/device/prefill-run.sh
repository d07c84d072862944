#!/usr/bin/env bash
# Runs what prefill-prep.sh prepared, on the GPU machine:   bash DIR/prefill-run.sh OUT
# (PROFILE_FORMATS="f16" profiles one format only, PROFILE_PLAN=T512 another plan than T256,
# PROFILE_FORMATS=none none; a plan removed from DIR/plans is skipped). With DECODE_AB's
# plans it also writes OUT/decode.txt. NVIDIA's Vulkan ICD (libGLX_nvidia) needs libglvnd
# beside the loader: carry libvulkan1, libglvnd0, libglx0, libgl1, libegl1, libopengl0 and
# libgles2 (the device tool's .gl recipe) and set VK_DRIVER_FILES to its nvidia_icd.json.
set -uo pipefail
out=${1:?OUT}; here=$(cd "$(dirname "$0")" && pwd); b=$here/bin; t0=$(date +%s)
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv > "$out/gpu.txt" 2>&1
prompt=$(python3 -c "print(','.join(str((i * 37 + 5) % 256) for i in range(45)))")
for p in "$here"/tiny/*.kplan; do
  n=$(basename "$p" .kplan); c=${n%%.*}; f=${n##*.}
  "$b/kiln-synth" --config "$here/cfg/$c.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
  echo "$n: $(timeout 60 "$b/kiln-run" "$p" --weights /tmp/w.st --prompt "$prompt" --max-new 24 \
    --check-reference "$here/cfg/$c.json" 2>&1 | grep -E 'check-reference: [0-9]|rror' | tr '\n' ' ')" >> "$out/parity.txt"
done
for f in f16 q8_2f; do
  "$b/kiln-synth" --config "$here/cfg/embryo-1b.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
  for p in "$here"/plans/$f.*.kplan; do
    echo "== $(basename "$p") [$(( $(date +%s) - t0 )) s]" >> "$out/pp.txt"
    timeout 150 "$b/kiln-bench" "$p" --weights /tmp/w.st -p 2048 -n 0 -r 2 2>&1 \
      | grep -E "pp2048|rror" >> "$out/pp.txt"
  done
done
# Where a prefill call's time goes: each dispatch of @prefill (PROFILE_PLAN's rows a call),
# 2,048 rows.
long=$(python3 -c "print(','.join(str((i * 37 + 5) % 32000) for i in range(2048)))")
for f in ${PROFILE_FORMATS:-f16 q8_2f}; do
  [ "$f" = none ] && continue
  "$b/kiln-synth" --config "$here/cfg/embryo-1b.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
  timeout 120 "$b/kiln-run" "$here/plans/$f.${PROFILE_PLAN:-T256}.kplan" --weights /tmp/w.st --prompt "$long" \
    --max-new 1 --profile-prefill --stats --quiet > "$out/profile.$f.txt" 2>&1
done
# DECODE_AB's plans: tg128 of base and alt, then in the reverse order (drift shows).
if [ -d "$here/dec" ]; then
  for f in f16 q8_2f; do
    "$b/kiln-synth" --config "$here/cfg/embryo-1b.json" --format "$f" --quiet -o /tmp/w.st > /dev/null
    for order in "base alt" "alt base"; do
      read -r first second <<< "$order"
      echo "== $f $order" >> "$out/decode.txt"
      timeout 120 "$b/kiln-bench" "$here/dec/$f.$first.kplan" "$here/dec/$f.$second.kplan" \
        --weights /tmp/w.st -p 0 -n 128 -r 5 2>&1 | grep -E "tg128|rror" >> "$out/decode.txt"
    done
  done
fi
rm -f /tmp/w.st
echo "done [$(( $(date +%s) - t0 )) s]" >> "$out/pp.txt"
