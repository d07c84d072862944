#!/usr/bin/env bash
# Prepares one device session's A/B of `--matvec-plain-groups-per-thread 2`
# (mat-vecs of one plain input, no norm, up, column scale or slerp, read 2
# groups a thread, so twice the threads; the others keep the target's 4 x 4):
# dory-1b's q8_2f mat-vecs are all plain and took 4 x 2 best (+14.8% against
# 8 x 8, 4 x 4 +11.8%), embryo-1b's mostly not (4 x 2 +1.2%, 4 x 4 +7.5%;
# docs/performance.md, eleventh session). A = defaults, B = the flag; the tiny
# parity set with A's plans. Then on the GPU machine (about 3.5 minutes):
#   PROBE=0 PLANS="A B" KERNELS="" bash DIR/vector-activations-run.sh DIR OUT
#
#   bench/device/plain-groups-prep.sh BUILD DIR
set -euo pipefail
usage="usage: plain-groups-prep.sh BUILD DIR"
b=${1:?$usage}; dir=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
A_FLAGS="" B_FLAGS="--matvec-plain-groups-per-thread 2" \
  bash "$here/vector-activations-prep.sh" "$b" "$dir"
