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
    echo "== $m ($f)"
    "$bin/kiln-synth" --config "$root/examples/$m.json" --seed 1 --format "$f" \
      -o "$work/$m-$f.safetensors" --quiet
    if "$bin/kiln-compile" "$root/examples/$m.json" --weight-format "$f" \
         -o "$work/$m-$f.kplan" 2>"$work/compile.log"; then
      "$bin/kiln-run" "$work/$m-$f.kplan" --weights "$work/$m-$f.safetensors" \
        --prompt 1,2,3 --max-new 64 --stats \
        --check-reference "$root/examples/$m.json" "$work/$m-$f.safetensors"
    else
      # The compiler cannot lower every feature yet (issue 5): say why, then show the
      # CPU reference's tokens for the same weights.
      echo "   kiln-compile could not lower $m yet:"
      grep -m1 "error" "$work/compile.log" | sed 's/^/     /'
      echo "   CPU reference instead:"
      "$bin/kiln-ref" --config "$root/examples/$m.json" --weights "$work/$m-$f.safetensors" \
        --prompt 1,2,3 --max-new 64
    fi
  done
done
