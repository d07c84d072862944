#!/usr/bin/env bash
# README's main command: installs what is missing, builds, then compiles the tiny default
# models to plans and runs them on this machine's Vulkan device (lavapipe if no GPU),
# checking every token against the CPU reference.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KILN_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh"
bin=$build/bin
work=$(mktemp -d /tmp/kiln-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "== kiln-opt: the hand-written example models parse and verify"
for m in embryo-tiny dory-tiny; do
  echo "   examples/$m.mlir:"
  "$bin/kiln-opt" "$root/examples/$m.mlir" --kiln-verify-model --print-op-stats -o /dev/null 2>&1 | \
    sed -n 's/^ *kiln\./     kiln./p'
done

"$bin/kiln-run" --list-devices
for m in embryo-tiny dory-tiny; do
  for f in f16 q8_2f; do
    echo "== $m ($f): compile (fusion report), run 64 greedy tokens, check against the CPU reference"
    "$bin/kiln-synth" --config "$root/examples/$m.json" --seed 1 --format "$f" \
      -o "$work/$m-$f.safetensors" --quiet
    # Compiled for this machine's device (lavapipe when there is no GPU), as -march=native.
    "$bin/kiln-compile" "$root/examples/$m.json" --weight-format "$f" --quiet \
      --cost-target native --fusion-report -o "$work/$m-$f.kplan" | tail -n 1
    "$bin/kiln-run" "$work/$m-$f.kplan" --weights "$work/$m-$f.safetensors" \
      --prompt 1,2,3,4,5,6,7,8,9,10,11,12 --max-new 64 --stats \
      --check-reference "$root/examples/$m.json"
  done
done
