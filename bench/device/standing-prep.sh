#!/usr/bin/env bash
# Prepares one device call that measures where Kiln stands (docs/performance.md's first
# table): the default h200 plans of embryo-1b-32k and dory-1b-32k, f16 and q8_2f, and the
# tiny parity set of the defaults. Then on the GPU machine (about 3 minutes):
#   bash DIR/standing-run.sh OUT
# which writes OUT/standing.txt (kiln-bench tg64 from the start and at 256, 1,024, 4,096,
# 16,384 and 30,000 by --seek), OUT/wall.txt (kiln-run --stats, 256 tokens from 256),
# OUT/profile.MODEL.POSITION.txt (kiln-run --profile of the f16 plans at 256 and 30,000:
# issue 16's per-kernel figures), OUT/parity.txt and OUT/gpu.txt.
#
#   bench/device/standing-prep.sh BUILD DIR [EXTRA kiln-compile FLAGS...]
set -euo pipefail
usage="usage: standing-prep.sh BUILD DIR [FLAGS...]"
b=${1:?$usage}; dir=${2:?$usage}; shift 2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$dir"; mkdir -p "$dir"/{bin,plans,cfg,tiny}
cp "$b"/bin/{kiln-run,kiln-bench,kiln-synth} "$dir/bin/"
cp "$here/standing-run.sh" "$here/tiny-set.sh" "$dir/"
cp "$root"/examples/{embryo-1b-32k,dory-1b-32k}.json "$dir/cfg/"
for c in embryo-1b-32k dory-1b-32k; do
  for f in f16 q8_2f; do
    "$b/bin/kiln-compile" --quiet "$dir/cfg/$c.json" --cost-target h200 --weight-format "$f" \
      "$@" -o "$dir/plans/$c.$f.kplan"
  done
done
# shellcheck source=tiny-set.sh
source "$here/tiny-set.sh"
tiny_set_configs "$root" "$dir"
for f in f16 q8_2f; do tiny_set_plans "$b/bin/kiln-compile" "$dir" "$f" "" "$@"; done
du -sh "$dir"
