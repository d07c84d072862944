#!/usr/bin/env bash
# Prepares one device session's A/B of the eighth session's kernel changes (issue 17 and
# 16; docs/performance.md, eighth session): head_rows by subgroups, sample and exit_test
# with 16 loads a trip, window_attention holding its scores. A = a baseline build (commit
# b304eac), B = this tree, C = this tree with --head-rows-items workgroup (B against C:
# head_rows alone; C against A: the rest). Plans for the h200 target, the runtime tools of
# B, vkprobe and kiln-calibrate's plans. Then on the GPU machine (about 6 minutes):
#   bash DIR/small-kernels-ab-run.sh DIR OUT_DIR
# which writes OUT/parity.txt (the tiny set against the CPU reference, kiln-calibrate and
# vkprobe), OUT/embryo.txt (tg128 A/B/C, each kernel alone for A and B) and OUT/dory.txt
# (kiln-bench --seek at the start, 256 and 4,096, A/B/C; profiles at 4,000).
#
#   bench/device/small-kernels-ab-prep.sh BUILD_A BUILD_B DIR
set -euo pipefail
usage="usage: small-kernels-ab-prep.sh BUILD_A BUILD_B DIR"
a=${1:?$usage}; b=${2:?$usage}; dir=${3:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$dir"; mkdir -p "$dir"/{bin,plans,cfg,tiny,cal}
cp "$b"/bin/{kiln-run,kiln-bench,kiln-synth,kiln-calibrate} "$dir/bin/"
cp "$root/../shared/tools/vkprobe/vkprobe" "$dir/bin/" 2>/dev/null || echo "prep: no vkprobe"
cp "$here"/{small-kernels-ab-run.sh,tiny-set.sh} "$dir/"
cp "$root"/examples/{embryo-1b,dory-1b-32k}.json "$dir/cfg/"
source "$here/tiny-set.sh"
tiny_set_configs "$root" "$dir"
compile() { "$1/bin/kiln-compile" --quiet "$2" --cost-target h200 "${@:3}"; }
for f in f16 q8_2f; do
  echo "prep: $f"
  for c in embryo-1b dory-1b-32k; do
    compile "$a" "$dir/cfg/$c.json" --weight-format "$f" -o "$dir/plans/$c.$f.A.kplan"
    compile "$b" "$dir/cfg/$c.json" --weight-format "$f" -o "$dir/plans/$c.$f.B.kplan"
    compile "$b" "$dir/cfg/$c.json" --weight-format "$f" --head-rows-items workgroup \
      -o "$dir/plans/$c.$f.C.kplan"
  done
  tiny_set_plans "$b/bin/kiln-compile" "$dir" "$f"
done
python3 "$root/bench/calibrate/gen.py" "$dir/cal"
for m in "$dir"/cal/*.mlir; do
  "$b/bin/kiln-compile" --quiet --from-stages "$m" -o "${m%.mlir}.kplan" && rm "$m"
done
du -sh "$dir"
