#!/usr/bin/env bash
# Prepares one device session's A/B of the SPIR-V's NonWritable decorations
# (kiln-compile --buffer-access, docs/performance.md, tenth session): the 1B
# plans A = undecorated, B = readonly (the default), C = weight buffers only,
# and the tiny parity set in each of those and with one buffer kind decorated
# at a time (which kind's decoration breaks a plan on the device). Then on the
# GPU machine (about 5 minutes):
#   PLANS="A B C" bash DIR/vector-activations-run.sh DIR OUT_DIR
#
#   bench/device/buffer-access-prep.sh BUILD DIR
set -euo pipefail
usage="usage: buffer-access-prep.sh BUILD DIR"
b=${1:?$usage}; dir=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
A_FLAGS="--buffer-access undecorated" B_FLAGS="" C_FLAGS="--buffer-access weight" \
  bash "$here/vector-activations-prep.sh" "$b" "$dir"
source "$here/tiny-set.sh"
rm -f "$dir"/tiny/*.kplan
for f in f16 q8_2f; do
  for access in undecorated readonly weight state scratch params; do
    tiny_set_plans "$b/bin/kiln-compile" "$dir" "$f" "$access" --buffer-access "$access"
  done
done
ls "$dir/tiny" | wc -l
