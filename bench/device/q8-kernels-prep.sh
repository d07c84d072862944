#!/usr/bin/env bash
# Prepares one device session's kernel tables of q8_2f's two best item shapes
# (docs/performance.md, eleventh session: 4 x 4, the h200 default, is best on
# embryo-1b, 4 x 2 on dory-1b by 2.7%): each mat-vec alone (`kiln-bench
# kernels`, L2 flushed) at A = 4 x 4 and B = 4 x 2, both models, so that a
# shape can be chosen per mat-vec (rows, columns) rather than per format.
# Then on the GPU machine (about 5 minutes):
#   FORMATS=q8_2f PROBE=0 PLANS="A B" KERNELS="A B" DORY_KERNELS="A B" \
#     bash DIR/vector-activations-run.sh DIR OUT
#
#   bench/device/q8-kernels-prep.sh BUILD DIR
set -euo pipefail
usage="usage: q8-kernels-prep.sh BUILD DIR"
b=${1:?$usage}; dir=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
A_FLAGS="" B_FLAGS="--matvec-rows-per-item 4 --matvec-groups-per-thread 2" \
  bash "$here/vector-activations-prep.sh" "$b" "$dir"
