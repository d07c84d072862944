#!/usr/bin/env bash
# Prepares one device session's sweep of q8_2f's mat-vec item shape (rows an
# item x 16-byte groups a thread; 8 x 8 until the eleventh session, whose
# first sweep found 8 x 2 +5.7% and 2 x 8 +3.3% on embryo-1b; f16 lost with
# every shape but 4 x 4, docs/performance.md): A = defaults, B = 8 x 1,
# C = 4 x 2, D = 16 x 2, E = 4 x 4, F = 8 x 2, G = 16 x 1. The flags set both
# formats, so only the q8_2f plans are run. Then on the GPU machine (about 5 minutes):
#   FORMATS=q8_2f PLANS="A B C D E F G" KERNELS="" DORY_PLANS="A B C F" DORY_POSITIONS=4096 \
#     bash DIR/vector-activations-run.sh DIR OUT
#
#   bench/device/q8-item-shape-prep.sh BUILD DIR
set -euo pipefail
usage="usage: q8-item-shape-prep.sh BUILD DIR"
b=${1:?$usage}; dir=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
A_FLAGS="" B_FLAGS="--matvec-groups-per-thread 1" \
  C_FLAGS="--matvec-rows-per-item 4 --matvec-groups-per-thread 2" \
  D_FLAGS="--matvec-rows-per-item 16 --matvec-groups-per-thread 2" \
  E_FLAGS="--matvec-rows-per-item 4 --matvec-groups-per-thread 4" \
  F_FLAGS="--matvec-groups-per-thread 2" \
  G_FLAGS="--matvec-rows-per-item 16 --matvec-groups-per-thread 1" \
  bash "$here/vector-activations-prep.sh" "$b" "$dir"
