#!/usr/bin/env bash
# Prepares one device session's A/B of the mat-vec item owner (kiln-compile
# --matvec-items workgroup | subgroup, with rows per item swept) and of the row sums
# (--matvec-sums lanes | scalar: plans named -s) and of where a norm applies
# (--matvec-norm before | after: plans named -n) and of a capped grid
# (--matvec-grid-limit N: -gN; 528 = the H200's 132 SMs x 4) and of Dory's slerps
# (--matvec-slerp apart: plans named apart) on the 1B configs:
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
scalar="--matvec-sums scalar"
after="--matvec-norm after"   # Embryo only: Dory's mat-vecs have no norm
compile embryo-1b f16 wg
compile embryo-1b f16 sg4 $(sg 4)
compile embryo-1b f16 sg2 $(sg 2)
compile embryo-1b f16 sg1 $(sg 1)
compile embryo-1b f16 wg-s $scalar
compile embryo-1b f16 sg4-s $(sg 4) $scalar
compile embryo-1b f16 sg1-s $(sg 1) $scalar
compile embryo-1b f16 wg-n $after
compile embryo-1b f16 sg4-n $(sg 4) $after
compile embryo-1b f16 wg-g528 --matvec-grid-limit 528
compile embryo-1b f16 sg4-g264 $(sg 4) --matvec-grid-limit 264
compile embryo-1b f16 sg1-g528 $(sg 1) --matvec-grid-limit 528
compile embryo-1b q8_2f wg
compile embryo-1b q8_2f sg8 $(sg 8)
compile embryo-1b q8_2f sg4 $(sg 4)
compile embryo-1b q8_2f sg2 $(sg 2)
compile embryo-1b q8_2f wg-s $scalar
compile embryo-1b q8_2f sg8-s $(sg 8) $scalar
compile embryo-1b q8_2f sg4-s $(sg 4) $scalar
compile embryo-1b q8_2f wg-n $after
compile embryo-1b q8_2f sg8-n $(sg 8) $after
compile embryo-1b q8_2f sg8-sn $(sg 8) $scalar $after
compile embryo-1b q8_2f wg-g528 --matvec-grid-limit 528
compile embryo-1b q8_2f sg8-g264 $(sg 8) --matvec-grid-limit 264
compile dory-1b f16 wg
# Dory's slerps in their own dispatches (the plans before 4e70c68, but with the
# capture inside the prep): the slerp A/B.
compile dory-1b f16 apart --matvec-slerp apart
compile dory-1b f16 sg4 $(sg 4)
compile dory-1b f16 sg2 $(sg 2)
compile dory-1b f16 wg-s $scalar
compile dory-1b f16 sg4-s $(sg 4) $scalar
compile dory-1b f16 sg4-g264 $(sg 4) --matvec-grid-limit 264
compile dory-1b q8_2f wg
compile dory-1b q8_2f apart --matvec-slerp apart
compile dory-1b q8_2f sg8 $(sg 8)
compile dory-1b q8_2f sg4 $(sg 4)
compile dory-1b q8_2f wg-s $scalar
compile dory-1b q8_2f sg8-s $(sg 8) $scalar
[ -n "$old" ] && compile dory-1b q8_2f old --target-file "$old"
du -sh "$dir"
