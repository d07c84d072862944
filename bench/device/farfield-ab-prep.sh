#!/usr/bin/env bash
# Prepares one device session's A/B of Dory's far-field kernels at a full window (issue
# 16; docs/performance.md, seventh session): dory-1b-32k f16 and q8_2f plans of two builds,
# A (before: commit f2be8a1) and B (this tree), the cost model's estimates of B at 256 and
# 4,000, and the dory-tiny parity set of B. Then on the GPU machine:
#   bash DIR/farfield-ab-run.sh DIR OUT_DIR
# which writes OUT/parity.txt, OUT/sweep-{f16,q8_2f}.txt (kiln-bench --seek at 256, 4,096
# and 30,000, A against B in one run) and OUT/profile-{f16,q8_2f}.txt (B's per-dispatch
# profile at 256 and 4,000), OUT/estimates.txt.
#
#   bench/device/farfield-ab-prep.sh BUILD_A BUILD_B DIR
set -euo pipefail
a=${1:?usage: farfield-ab-prep.sh BUILD_A BUILD_B DIR}
b=${2:?usage: farfield-ab-prep.sh BUILD_A BUILD_B DIR}
dir=${3:?usage: farfield-ab-prep.sh BUILD_A BUILD_B DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$dir"; mkdir -p "$dir"/{bin,plans,cfg,tiny}
cp "$b"/bin/{kiln-run,kiln-bench,kiln-synth} "$dir/bin/"
cp "$here"/{farfield-ab-run.sh,tiny-set.sh} "$dir/"
cp "$root"/examples/{dory-1b-32k,dory-tiny}.json "$dir/cfg/"
python3 "$root/test/e2e/Inputs/edit_config.py" "$root/examples/dory-tiny.json" "$dir/cfg/dory-tiny-odd.json" \
  loop.exit_threshold=0.05 hidden_size=70 intermediate_size=90 head_dim=10 num_q_heads=6 num_kv_heads=2
for f in f16 q8_2f; do
  for side in A B; do
    build=$a; [ "$side" = B ] && build=$b
    echo "prep: dory-1b-32k $f $side"
    "$build/bin/kiln-compile" --quiet "$dir/cfg/dory-1b-32k.json" --weight-format "$f" \
      --cost-target h200 -o "$dir/plans/dory-1b-32k.$f.$side.kplan"
  done
  bash "$here/estimates.sh" "$b/bin/kiln-compile" "$dir/cfg/dory-1b-32k.json" "$f" >> "$dir/estimates.txt"
  for c in dory-tiny dory-tiny-odd; do
    "$b/bin/kiln-compile" --quiet "$dir/cfg/$c.json" --weight-format "$f" --cost-target h200 \
      -o "$dir/tiny/$c.$f.kplan"
  done
done
du -sh "$dir"
