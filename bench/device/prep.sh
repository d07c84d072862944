#!/usr/bin/env bash
# Prepares a self-contained folder for a GPU machine without MLIR: the runtime tools
# (kiln-run, kiln-synth, kiln-calibrate link no MLIR/LLVM), configs, plans compiled here
# (fused for COST_TARGET and one-stage-per-dispatch), the calibration plans, and each
# plan's estimated us/token from --fusion-report. Then, on the GPU machine:
#   bash DIR/run.sh DIR OUT_DIR
#
#   bench/device/prep.sh BUILD_DIR DIR [COST_TARGET]   (default h200)
set -euo pipefail
build=${1:?usage: prep.sh BUILD_DIR DIR [COST_TARGET]}
dir=${2:?usage: prep.sh BUILD_DIR DIR [COST_TARGET]}
cost=${3:-h200}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
edit="$root/test/e2e/Inputs/edit_config.py"
rm -rf "$dir"; mkdir -p "$dir"/{bin,cfg,plans,cal}
cp "$build"/bin/{kiln-run,kiln-synth,kiln-calibrate} "$dir/bin/"
cp "$here/run.sh" "$dir/"

# Parity configs (tiny: the reference runs beside the plan) and speed configs (1b).
cp "$root"/examples/{embryo-tiny,dory-tiny,embryo-1b,dory-1b}.json "$dir/cfg/"
cp "$root"/bench/fusion/configs/{embryo-seed,dory-seed}.json "$dir/cfg/"
python3 "$edit" "$root/examples/dory-tiny.json" "$dir/cfg/dory-tiny-exit.json" loop.exit_threshold=0.05
python3 "$edit" "$root/examples/embryo-tiny.json" "$dir/cfg/embryo-tiny-odd.json" moe=DEL hidden_size=69 \
  anchor.head_dim=13 anchor.rotary_dim=6 gdn.head_k_dim=13 gdn.head_v_dim=11 num_clusters=15 \
  cluster_size=17 vocab_size=255
python3 "$edit" "$root/examples/dory-tiny.json" "$dir/cfg/dory-tiny-odd.json" loop.exit_threshold=0.05 \
  hidden_size=70 intermediate_size=90 head_dim=10 num_q_heads=6 num_kv_heads=2

compile() { # config format mode plan
  "$build/bin/kiln-compile" --quiet "$1" --weight-format "$2" --fusion="$3" --cost-target "$cost" \
    --fusion-report -o "$4" | sed -n 's/^  total: \([0-9]*\) dispatches, .* \([0-9.]*\) us per token.*/\1 \2/p' \
    | tail -n 1 > "$4.estimate"
}
for c in embryo-tiny dory-tiny dory-tiny-exit embryo-tiny-odd dory-tiny-odd; do
  for f in f16 q8_2f; do
    echo "prep: $c $f"
    compile "$dir/cfg/$c.json" "$f" cost "$dir/plans/$c.$f.cost.kplan"
  done
done
for c in embryo-1b dory-1b embryo-seed dory-seed; do
  for f in f16 q8_2f; do
    for m in cost none; do
      echo "prep: $c $f fusion=$m"
      compile "$dir/cfg/$c.json" "$f" "$m" "$dir/plans/$c.$f.$m.kplan"
    done
  done
done
python3 "$root/bench/calibrate/gen.py" "$dir/cal"
for m in "$dir"/cal/*.mlir; do
  "$build/bin/kiln-compile" --quiet --from-stages "$m" --fusion=none -o "${m%.mlir}.kplan"
done
cp "$root/targets/$cost.json" "$dir/cal/base.json"
du -sh "$dir"
