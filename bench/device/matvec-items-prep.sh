#!/usr/bin/env bash
# Prepares one device session's A/B of the mat-vec switches against the h200
# defaults (plans named wg): the defaults before 2026-12-05's per-format choice
# (lanes, before), the norm after on top of f16 scalar sums (sn), subgroup items
# (sgN), and Dory's slerps inside their readers (inside) or beside the dots (after)
# on the 1B configs:
# the runtime tools of BUILD, the plans, and matvec-items-run.sh. Then on the GPU machine:
#   bash DIR/matvec-items-run.sh DIR OUT_DIR
#
#   bench/device/matvec-items-prep.sh BUILD DIR [OLD_TARGET.json]
# OLD_TARGET, if given, adds dory-1b q8_2f compiled with that cost target (plan "old").
set -euo pipefail
build=${1:?usage: matvec-items-prep.sh BUILD DIR [OLD_TARGET.json]}
dir=${2:?usage: matvec-items-prep.sh BUILD DIR [OLD_TARGET.json]}
old=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$dir"; mkdir -p "$dir"/{bin,plans,cfg}
cp "$build"/bin/{kiln-run,kiln-bench,kiln-synth} "$dir/bin/"
cp "$here/matvec-items-run.sh" "$dir/"
[ -x "$root/../shared/tools/vkprobe/vkprobe" ] && cp "$root/../shared/tools/vkprobe/vkprobe" "$dir/bin/"
cp "$root"/examples/{embryo-1b,dory-1b}.json "$dir/cfg/"
compile() { # config format name [flags...]
  local c=$1 f=$2 n=$3; shift 3
  echo "prep: $c $f $n $*"
  "$build/bin/kiln-compile" --quiet "$dir/cfg/$c.json" --weight-format "$f" --cost-target h200 \
    -o "$dir/plans/$c.$f.$n.kplan" "$@"
}
sg() { echo --matvec-items subgroup --matvec-rows-per-item "$1"; }
# The defaults (h200: f16 scalar sums, q8_2f norm after, slerps apart) against the
# questions still open (docs/performance.md, 2026-12-05 sixth session).
compile embryo-1b f16 wg
compile embryo-1b f16 lanes --matvec-sums lanes          # the default before
compile embryo-1b f16 sn --matvec-norm after
compile embryo-1b f16 sg4 $(sg 4)
compile embryo-1b q8_2f wg
compile embryo-1b q8_2f before --matvec-norm before      # the default before
compile embryo-1b q8_2f sg8 $(sg 8)
compile dory-1b f16 wg
# Dory's slerps: in their own dispatches (the default), inside their readers with the
# sums reduced before the weight loads, or beside the dots.
compile dory-1b f16 inside --matvec-slerp inside
compile dory-1b f16 after --matvec-slerp after-dots
compile dory-1b f16 lanes --matvec-sums lanes
compile dory-1b q8_2f wg
compile dory-1b q8_2f after --matvec-slerp after-dots
compile dory-1b q8_2f inside --matvec-slerp inside
[ -n "$old" ] && compile dory-1b q8_2f old --target-file "$old"
du -sh "$dir"
