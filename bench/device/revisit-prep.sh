#!/usr/bin/env bash
# Prepares one device session's A/B of the mat-vec switches measured before the
# tenth session declared read-only buffers NonWritable (docs/performance.md):
# each lost then, and the declaration changed what the driver does with the
# loads (views on plain inputs stopped costing). A = today's defaults, B =
# subgroup items, C = 16 loads in flight a thread, D = f16 lane sums, E = f16
# norm after the dots, F = A with the buffers undecorated (the baseline of the
# tenth session), G = barriers ordering storage buffers only where a kernel
# hands values through one (`--barrier-semantics needed`, never measured).
# Then on the GPU machine:
#   PLANS="A B C D E F G" KERNELS="" DORY_PLANS="A B C F G" bash DIR/vector-activations-run.sh DIR OUT
# (about 8 minutes; KERNELS="A" adds the kernel table, DORY_POSITIONS=4096 the full window:
# each needs a call of its own within the 10-minute limit)
#
#   bench/device/revisit-prep.sh BUILD DIR
set -euo pipefail
usage="usage: revisit-prep.sh BUILD DIR"
b=${1:?$usage}; dir=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
A_FLAGS="" B_FLAGS="--matvec-items subgroup" C_FLAGS="--matvec-loads-in-flight 16" \
  D_FLAGS="--matvec-sums lanes" E_FLAGS="--matvec-norm after" F_FLAGS="--buffer-access undecorated" \
  G_FLAGS="--barrier-semantics needed" \
  bash "$here/vector-activations-prep.sh" "$b" "$dir"
