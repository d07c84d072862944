#!/usr/bin/env bash
# Prepares one device session's sweep of the mat-vec item shape and the
# attention value slice on top of the eleventh session's defaults (f16 norm
# after the dots too; docs/performance.md): A = defaults, B = `--matvec-norm
# before` (f16's previous default; q8_2f's too, measured before), C / D = 8 / 2
# rows an item (f16 was 4, q8_2f 8), E / F = 8 / 2 groups a thread (f16 was 4,
# q8_2f 8), G = 4 head dims a value workgroup (h200: 8). Each switch was last
# chosen before read-only buffers were declared NonWritable, which changed
# what the driver does with the loads. Then on the GPU machine (about 8 minutes):
#   PLANS="A B C D E F G" KERNELS="" DORY_PLANS="A C E G" DORY_POSITIONS=4096 \
#     bash DIR/vector-activations-run.sh DIR OUT
#
#   bench/device/matvec-shape-prep.sh BUILD DIR
set -euo pipefail
usage="usage: matvec-shape-prep.sh BUILD DIR"
b=${1:?$usage}; dir=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
A_FLAGS="" B_FLAGS="--matvec-norm before" C_FLAGS="--matvec-rows-per-item 8" \
  D_FLAGS="--matvec-rows-per-item 2" E_FLAGS="--matvec-groups-per-thread 8" \
  F_FLAGS="--matvec-groups-per-thread 2" G_FLAGS="--attention-value-dims 4" \
  bash "$here/vector-activations-prep.sh" "$b" "$dir"
