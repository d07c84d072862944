#!/usr/bin/env bash
# Prepares one device call that measures the attention switches (issue 16's per-layer
# bar, eighteenth session): embryo-1b-32k and dory-1b-32k, h200 target, one plan a
# variant of VARIANTS (letter and kiln-compile flags a line; A = the defaults), f16,
# and the A and K plans in q8_2f; the tiny parity set with --split-attention beside
# them. Then on the GPU machine (about 4 minutes):
#   bash DIR/attention-run.sh OUT
# which writes OUT/attention.txt (kiln-bench tg64 at positions 256 ... 30,000 by seek,
# every variant), OUT/profile.txt (each model's attention dispatches at position 4,000,
# A and K) and OUT/parity.txt.
#
#   bench/device/attention-prep.sh BUILD DIR [VARIANTS]   (default: attention-grid.txt)
set -euo pipefail
usage="usage: attention-prep.sh BUILD DIR [VARIANTS]"
b=${1:?$usage}; dir=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
variants=${3:-$here/attention-grid.txt}
rm -rf "$dir"; mkdir -p "$dir"/{bin,plans,cfg,tiny}
cp "$b"/bin/{kiln-run,kiln-bench,kiln-synth} "$dir/bin/"
cp "$here/attention-run.sh" "$here/tiny-set.sh" "$dir/"
grep -v '^#' "$variants" | grep . > "$dir/variants.txt"
cp "$root"/examples/{embryo-1b-32k,dory-1b-32k}.json "$dir/cfg/"
while read -r letter flags; do
  for c in embryo-1b-32k dory-1b-32k; do
    for f in f16 q8_2f; do
      [ "$f" = q8_2f ] && [ "$letter" != A ] && [ "$letter" != K ] && continue
      # shellcheck disable=SC2086 # a variant's flags are words
      "$b/bin/kiln-compile" --quiet "$dir/cfg/$c.json" --cost-target h200 --weight-format "$f" \
        $flags -o "$dir/plans/$c.$f.$letter.kplan"
    done
  done
done < "$dir/variants.txt"
# shellcheck source=tiny-set.sh
source "$here/tiny-set.sh"
tiny_set_configs "$root" "$dir"
for f in f16 q8_2f; do
  tiny_set_plans "$b/bin/kiln-compile" "$dir" "$f" K --split-attention
  tiny_set_plans "$b/bin/kiln-compile" "$dir" "$f" K3 --split-attention --block-keys 3
done
du -sh "$dir"
