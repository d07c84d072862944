#!/usr/bin/env bash
# Fused vs one-stage-per-dispatch decode speed, with the cost model's estimate
# beside the measurement (docs/performance.md). Not a test: timings vary.
#
#   bench/fusion/run.sh BIN_DIR TARGET [TOKENS] [FORMAT]
#
# BIN_DIR holds kiln-compile, kiln-synth and kiln-run; TARGET is a descriptor
# name in targets/ (lavapipe, h200, ...) or a .json path, the cost model's
# target for fusion. Configs: Embryo without MoE and Dory without far field /
# early exit (what convert-kiln-to-stage lowers everywhere), from examples/;
# extra configs may be given as KILN_BENCH_CONFIGS="a.json b.json".
# Needs only the three tools and python3.
set -euo pipefail
bin=${1:?usage: run.sh BIN_DIR TARGET [TOKENS] [FORMAT]}
target=${2:?usage: run.sh BIN_DIR TARGET [TOKENS] [FORMAT]}
tokens=${3:-64}
format=${4:-f16}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ "$target" == *.json ]]; then target_flag=(--target-file "$target"); else target_flag=(--cost-target "$target"); fi
edit="$root/test/e2e/Inputs/edit_config.py"
python3 "$edit" "$root/examples/embryo-tiny.json" "$work/embryo-tiny.json" moe=DEL
python3 "$edit" "$root/examples/dory-tiny.json" "$work/dory-tiny.json" loop.exit_threshold=DEL far_field=DEL
configs=("$work/embryo-tiny.json" "$work/dory-tiny.json")
for c in ${KILN_BENCH_CONFIGS:-}; do configs+=("$c"); done

# One line per (config, mode): dispatches/token, measured ms/token, estimate.
run() { # config mode
  local cfg=$1 mode=$2 name plan
  name=$(basename "$cfg" .json)
  plan="$work/$name.$mode.kplan"
  "$bin/kiln-compile" --quiet "$cfg" --weight-format "$format" "${target_flag[@]}" \
      --fusion="$mode" --fusion-report -o "$plan" > "$work/$name.$mode.report"
  "$bin/kiln-run" "$plan" --weights "$work/$name.safetensors" --prompt 1,2,3,4 \
      --max-new "$tokens" --stats > /dev/null 2> "$work/$name.$mode.stats"
  python3 - "$name" "$mode" "$work/$name.$mode.report" "$work/$name.$mode.stats" <<'PY'
import re, sys
name, mode, report, stats = sys.argv[1:]
rep = open(report).read(); st = open(stats).read()
est = re.search(r"func @decode\n(?:.*\n)*?  total: (\d+) dispatches, \d+ stages, ([0-9.]+) us", rep)
ms = re.search(r"ms/token: ([0-9.]+)", st)
disp = re.search(r"dispatches/token: (\d+)", st)
print(f"| {name} | {mode} | {disp.group(1) if disp else '?'} | "
      f"{float(ms.group(1)):.3f} | {float(est.group(2))/1000:.3f} |")
PY
}

echo "target: $target, format: $format, $tokens tokens after a 4-token prompt"
echo "| config | fusion | dispatches/token | measured ms/token | estimated ms/token |"
echo "|---|---|---|---|---|"
for cfg in "${configs[@]}"; do
  name=$(basename "$cfg" .json)
  "$bin/kiln-synth" --config "$cfg" --format "$format" --quiet -o "$work/$name.safetensors" > /dev/null
  run "$cfg" none
  run "$cfg" cost
done
