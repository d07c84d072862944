#!/usr/bin/env bash
# Prepares an A/B folder for one device session: the runtime tools and 1B plans of two
# builds (A: a baseline commit's build, B: this tree's), plus B's plans in mat-vec shape
# variants (rows per item R, groups per thread G), the tiny parity configs and vkprobe.
# Then on the GPU machine: bash DIR/ab-run.sh DIR OUT_DIR
#
#   bench/device/ab-prep.sh BUILD_A BUILD_B DIR [VARIANTS]   (VARIANTS: "R,G R,G ...")
set -euo pipefail
a=${1:?usage: ab-prep.sh BUILD_A BUILD_B DIR [VARIANTS]}
b=${2:?usage: ab-prep.sh BUILD_A BUILD_B DIR [VARIANTS]}
dir=${3:?usage: ab-prep.sh BUILD_A BUILD_B DIR [VARIANTS]}
variants=${4:-"2,4 8,4 4,2 4,8 1,8"}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$dir"; mkdir -p "$dir"/{A,B}/{bin,plans} "$dir/cfg"
for side in A B; do
  build=$a; [ "$side" = B ] && build=$b
  cp "$build"/bin/{kiln-run,kiln-synth} "$dir/$side/bin/"
done
cp "$here/ab-run.sh" "$dir/"
[ -x "$root/../shared/tools/vkprobe/vkprobe" ] && cp "$root/../shared/tools/vkprobe/vkprobe" "$dir/"
cp "$root"/examples/{embryo-tiny,dory-tiny,embryo-1b,dory-1b}.json "$dir/cfg/"
python3 "$root/test/e2e/Inputs/edit_config.py" "$root/examples/dory-tiny.json" \
  "$dir/cfg/dory-tiny-exit.json" loop.exit_threshold=0.05
compile() { # build config format out [extra flags]
  local build=$1 cfg=$2 fmt=$3 out=$4; shift 4
  "$build/bin/kiln-compile" --quiet "$cfg" --weight-format "$fmt" --cost-target h200 "$@" -o "$out"
}
for c in embryo-1b dory-1b; do
  for f in f16 q8_2f; do
    echo "prep: $c $f"
    compile "$a" "$dir/cfg/$c.json" "$f" "$dir/A/plans/$c.$f.kplan"
    compile "$b" "$dir/cfg/$c.json" "$f" "$dir/B/plans/$c.$f.kplan"
  done
done
for v in $variants; do
  r=${v%,*}; g=${v#*,}
  for f in f16 q8_2f; do
    echo "prep: embryo-1b $f R=$r G=$g"
    compile "$b" "$dir/cfg/embryo-1b.json" "$f" "$dir/B/plans/embryo-1b.$f.r${r}g${g}.kplan" \
      --matvec-rows-per-item "$r" --matvec-groups-per-thread "$g"
  done
done
for c in embryo-tiny dory-tiny dory-tiny-exit; do
  for f in f16 q8_2f; do
    compile "$b" "$dir/cfg/$c.json" "$f" "$dir/B/plans/$c.$f.tiny.kplan"
  done
done
du -sh "$dir"
