#!/usr/bin/env bash
# Prepares one device call that measures the multi-row @prefill (issue 14): embryo-1b's
# prompt throughput (kiln-bench pp2048) without @prefill (a prompt row a call, the
# default) against --prefill-rows R as compiled by default (A: mat-vec rows apart, the GDN
# step's rows in order) and with the blocked matrix product and the held GDN state (T:
# R = 64, 128, 256; M / G: one of the two), f16 and q8_2f; and the parity of the tiny
# prefill plans against the reference (a 45-token prompt, rows 8, every mat-vec a blocked
# product, the GDN state held). Then on the GPU machine (about 4 minutes):
#   bash DIR/prefill-run.sh OUT
# which writes OUT/pp.txt, OUT/parity.txt, OUT/profile.FORMAT.txt (kiln-run --profile-prefill
# of the 64-row plan over a 2,048-token prompt) and OUT/gpu.txt.
#
#   bench/device/prefill-prep.sh BUILD DIR
set -euo pipefail
usage="usage: prefill-prep.sh BUILD DIR"
b=${1:?$usage}; dir=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$dir"; mkdir -p "$dir"/{bin,plans,cfg,tiny}
cp "$b"/bin/{kiln-run,kiln-bench,kiln-synth} "$dir/bin/"
cp "$here/prefill-run.sh" "$here/tiny-set.sh" "$dir/"
cp "$root"/examples/embryo-1b.json "$dir/cfg/"
compile() { "$b/bin/kiln-compile" --quiet "$dir/cfg/embryo-1b.json" --cost-target h200 "$@"; }
together=(--prefill-matmat-min-blocks 64 --prefill-gdn-held)
for f in f16 q8_2f; do
  compile --weight-format $f -o "$dir/plans/$f.D.kplan"
  compile --weight-format $f --prefill-rows 64 "${together[@]}" -o "$dir/plans/$f.T64.kplan"
  compile --weight-format $f --prefill-rows 64 -o "$dir/plans/$f.A64.kplan"
done
compile --weight-format f16 --prefill-rows 64 --prefill-matmat-min-blocks 64 -o "$dir/plans/f16.M64.kplan"
compile --weight-format f16 --prefill-rows 64 --prefill-gdn-held -o "$dir/plans/f16.G64.kplan"
compile --weight-format f16 --prefill-rows 64 --prefill-matmat-min-blocks 1 --prefill-gdn-held \
  -o "$dir/plans/f16.T64all.kplan"
compile --weight-format f16 --prefill-rows 128 "${together[@]}" -o "$dir/plans/f16.T128.kplan"
compile --weight-format f16 --prefill-rows 256 "${together[@]}" -o "$dir/plans/f16.T256.kplan"
# shellcheck source=tiny-set.sh
source "$here/tiny-set.sh"
tiny_set_configs "$root" "$dir"
for f in f16 q8_2f; do
  for c in embryo-tiny embryo-tiny-odd; do
    "$b/bin/kiln-compile" --quiet "$dir/cfg/$c.json" --cost-target h200 --weight-format $f \
      --prefill-rows 8 --prefill-matmat-min-blocks 1 --prefill-gdn-held -o "$dir/tiny/$c.$f.kplan"
  done
done
du -sh "$dir"
