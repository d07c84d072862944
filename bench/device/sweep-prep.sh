#!/usr/bin/env bash
# Prepares a position sweep for one device session (issue 16): the runtime tools of
# BUILD_B and the 32k configs' plans (f16 and q8_2f) of two builds, A (a baseline
# commit's build) and B (this tree's). Then on the GPU machine:
#   bash DIR/sweep-run.sh DIR OUT_DIR
#
#   bench/device/sweep-prep.sh BUILD_A BUILD_B DIR [FORMATS]   (default "f16 q8_2f")
set -euo pipefail
a=${1:?usage: sweep-prep.sh BUILD_A BUILD_B DIR [FORMATS]}
b=${2:?usage: sweep-prep.sh BUILD_A BUILD_B DIR [FORMATS]}
dir=${3:?usage: sweep-prep.sh BUILD_A BUILD_B DIR [FORMATS]}
formats=${4:-"f16 q8_2f"}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$dir"; mkdir -p "$dir"/{bin,plans,cfg}
cp "$b"/bin/{kiln-run,kiln-bench,kiln-synth} "$dir/bin/"
cp "$here"/{sweep-run.sh,tiny-set.sh} "$dir/"
cp "$root"/examples/{embryo-1b-32k,dory-1b-32k}.json "$dir/cfg/"
for c in embryo-1b-32k dory-1b-32k; do
  for f in $formats; do
    echo "prep: $c $f"
    "$a/bin/kiln-compile" --quiet "$dir/cfg/$c.json" --weight-format "$f" --cost-target h200 \
      -o "$dir/plans/$c.$f.A.kplan"
    "$b/bin/kiln-compile" --quiet "$dir/cfg/$c.json" --weight-format "$f" --cost-target h200 \
      -o "$dir/plans/$c.$f.B.kplan"
    # The cost model's estimates at the profiled positions (issue 16's accuracy check).
    bash "$here/estimates.sh" "$b/bin/kiln-compile" "$dir/cfg/$c.json" "$f" >> "$dir/estimates.txt"
  done
done
# The tiny parity set with B's compiler (sweep-run.sh runs it first).
mkdir -p "$dir/tiny"
source "$here/tiny-set.sh"
tiny_set_configs "$root" "$dir"
for f in $formats; do tiny_set_plans "$b/bin/kiln-compile" "$dir" "$f"; done
du -sh "$dir"
