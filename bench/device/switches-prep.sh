#!/usr/bin/env bash
# Prepares one device call that measures the mat-vec switches on the card at hand
# (issue 17; prepared in the fourteenth session, when the H200's starts ran out):
# embryo-1b and dory-1b, f16 and q8_2f, h200 target, one plan a variant of
# VARIANTS (letter and kiln-compile flags a line; A = the defaults). Then on the GPU
# machine (about 3 minutes):
#   bash DIR/switches-run.sh DIR OUT_DIR
# which writes OUT/switches.txt (one kiln-bench tg64 run a model and format over every
# variant) and OUT/kernels.txt (embryo-1b's mat-vecs alone under KERNEL_VARIANTS).
#
#   bench/device/switches-prep.sh BUILD DIR [VARIANTS]   (default: the file beside this one)
set -euo pipefail
usage="usage: switches-prep.sh BUILD DIR [VARIANTS]"
b=${1:?$usage}; dir=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
variants=${3:-$here/switches.txt}
rm -rf "$dir"; mkdir -p "$dir"/{bin,plans,cfg,tiny}
cp "$b"/bin/{kiln-run,kiln-bench,kiln-synth} "$dir/bin/"
cp "$here/switches-run.sh" "$here/grid-run.sh" "$here/tiny-set.sh" "$dir/"
grep -v '^#' "$variants" | grep . > "$dir/variants.txt"
cp "$root"/examples/{embryo-1b,dory-1b}.json "$dir/cfg/"
while read -r letter flags; do
  for c in embryo-1b dory-1b; do
    for f in f16 q8_2f; do
      # shellcheck disable=SC2086 # a variant's flags are words
      "$b/bin/kiln-compile" --quiet "$dir/cfg/$c.json" --cost-target h200 --weight-format "$f" \
        $flags -o "$dir/plans/$c.$f.$letter.kplan"
    done
  done
done < "$dir/variants.txt"
du -sh "$dir"
