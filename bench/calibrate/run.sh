#!/usr/bin/env bash
# Builds the calibration plans and measures the local Vulkan device.
# usage: bench/calibrate/run.sh BUILD_DIR OUT.json [SCALE] [NAME]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1; out=$2; scale=${3:-1.0}; name=${4:-}
work=$(mktemp -d /tmp/kiln-calibrate.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 "$here/gen.py" "$work" --scale "$scale"
for m in "$work"/*.mlir; do
  # Unfused: each calibration plan times its own dispatches (a fused chain is one).
  "$build/bin/kiln-compile" --from-stages "$m" --fusion=none -o "${m%.mlir}.kplan"
done
"$build/bin/kiln-calibrate" --plans "$work" -o "$out" ${name:+--name "$name"} \
  --base "$here/../../targets/${name:-lavapipe}.json"
cat "$out"
