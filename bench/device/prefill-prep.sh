#!/usr/bin/env bash
# Prepares one device call that measures the multi-row @prefill (issue 14): embryo-1b's
# prompt throughput (kiln-bench pp2048) without @prefill (D: a prompt row a call) against
# --prefill-rows R with the blocked matrix product and the held GDN state (T: R = 64,
# 128, 256, 512, 1,024; f16, and q8_2f at 256), at 256 rows without the product (A) and without
# the held state (M); OLD_PLANS=DIR adds plans built before a change; and the parity of
# the tiny prefill plans against the reference (a 45-token prompt, rows 8, every mat-vec
# a blocked product, the GDN state held in chunks of 3 rows). VARIANTS and TINY_FLAGS:
# below. Then on the GPU machine
# (about 4 minutes):
#   bash DIR/prefill-run.sh OUT
# which writes OUT/pp.txt, OUT/parity.txt, OUT/profile.FORMAT.txt (kiln-run --profile-prefill
# of the 256-row plan over a 2,048-token prompt) and OUT/gpu.txt.
#
#   [OLD_PLANS=DIR] bench/device/prefill-prep.sh BUILD DIR
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
# OLD_PLANS=DIR adds DIR/*.kplan as old.* (the same plans built before a change: A/B in
# one call).
for p in ${OLD_PLANS:+$OLD_PLANS/*.kplan}; do cp "$p" "$dir/plans/f16.old.$(basename "$p")"; done
together=(--prefill-matmat-min-blocks 8)
for f in f16 q8_2f; do
  compile --weight-format $f --prefill-rows 0 -o "$dir/plans/$f.D.kplan"
  compile --weight-format $f --prefill-rows 256 "${together[@]}" -o "$dir/plans/$f.T256.kplan"
done
for r in 64 128 512 1024; do
  compile --weight-format f16 --prefill-rows $r "${together[@]}" -o "$dir/plans/f16.T$r.kplan"
done
compile --weight-format f16 --prefill-rows 256 --prefill-matmat-min-blocks 0 -o "$dir/plans/f16.A256.kplan"
compile --weight-format f16 --prefill-rows 256 "${together[@]}" --prefill-gdn-held=false \
  -o "$dir/plans/f16.M256.kplan"
# VARIANTS="NAME=FLAGS;..." adds f16 and q8_2f plans NAME at VARIANT_ROWS rows (512) with
# FLAGS (e.g. "t8=--prefill-matmat-tile 8"); TINY_FLAGS are added to the tiny parity plans,
# TINY_VARIANTS="NAME=FLAGS;..." adds tiny plans CONFIG.NAME.FORMAT with FLAGS beside them;
# DECODE_AB="FLAGS" adds decode-only plans (no @prefill) without and with FLAGS, f16 and
# q8_2f, which prefill-run.sh compares with kiln-bench tg128 (e.g. "--gdn-shuffle-sums").
IFS=';' read -ra variants <<< "${VARIANTS:-}"
for v in "${variants[@]}"; do
  name=${v%%=*}; read -ra flags <<< "${v#*=}"
  for f in f16 q8_2f; do
    compile --weight-format $f --prefill-rows "${VARIANT_ROWS:-512}" "${together[@]}" "${flags[@]}" \
      -o "$dir/plans/$f.$name.kplan"
  done
done
compile --weight-format q8_2f --prefill-rows 512 "${together[@]}" -o "$dir/plans/q8_2f.T512.kplan"
if [ -n "${DECODE_AB:-}" ]; then
  read -ra decode_flags <<< "$DECODE_AB"
  mkdir -p "$dir/dec"
  for f in f16 q8_2f; do
    compile --weight-format $f --prefill-rows 0 -o "$dir/dec/$f.base.kplan"
    compile --weight-format $f --prefill-rows 0 "${decode_flags[@]}" -o "$dir/dec/$f.alt.kplan"
  done
fi
read -ra tiny_flags <<< "${TINY_FLAGS:-}"
# shellcheck source=tiny-set.sh
source "$here/tiny-set.sh"
tiny_set_configs "$root" "$dir"
# tiny_plans TAG FLAGS...: the tiny parity plans CONFIG.TAG.FORMAT (CONFIG.FORMAT without a tag).
tiny_plans() {
  local tag=$1; shift
  for f in f16 q8_2f; do
    for c in embryo-tiny embryo-tiny-odd; do
      "$b/bin/kiln-compile" --quiet "$dir/cfg/$c.json" --cost-target h200 --weight-format $f \
        --prefill-rows 8 --prefill-matmat-min-blocks 1 --prefill-gdn-chunk-rows 3 "$@" \
        -o "$dir/tiny/$c${tag:+.$tag}.$f.kplan"
    done
  done
}
tiny_plans "" "${tiny_flags[@]}"
IFS=';' read -ra tiny_variants <<< "${TINY_VARIANTS:-}"
for v in "${tiny_variants[@]}"; do
  read -ra flags <<< "${v#*=}"
  tiny_plans "${v%%=*}" "${flags[@]}"
done
du -sh "$dir"
