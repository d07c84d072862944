#!/usr/bin/env bash
# Prepares one device session's A/B of mat-vec activations read as vec4s
# (StageToGPUOptions::vectorActivations, issue 17; docs/performance.md, ninth
# session): A = `--matvec-activations scalar`, B = the default (vec4), both
# from BUILD, h200 target; the tiny parity set with B's plans; vkprobe. Then
# on the GPU machine (about 4 minutes):
#   bash DIR/vector-activations-run.sh DIR OUT_DIR
# which writes OUT/parity.txt (tiny set against the CPU reference, vkprobe's
# mat-vecs on the 1B shapes), OUT/embryo.txt (tg128 A/B, each kernel alone for
# A and B) and OUT/dory.txt (kiln-bench --seek at the start and 4,096, A/B).
#
#   bench/device/vector-activations-prep.sh BUILD DIR
# With BUILD_C set, a third plan C from that build (the ninth session: B = 1799343,
# C = the same with the head's subgroup walk unrolled to the lane's groups).
# A_FLAGS, B_FLAGS, C_FLAGS .. G_FLAGS: each letter's kiln-compile flags instead
# (A's default `--matvec-activations scalar`, B's none; C to G only when set),
# e.g. the tenth session's A = `--buffer-access undecorated`, B = the default.
# With BUILD_A set, A's plans come from that build (a baseline commit's), its flags
# A_FLAGS (default none).
set -euo pipefail
usage="usage: vector-activations-prep.sh BUILD DIR"
b=${1:?$usage}; dir=${2:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$dir"; mkdir -p "$dir"/{bin,plans,cfg,tiny}
cp "$b"/bin/{kiln-run,kiln-bench,kiln-synth} "$dir/bin/"
cp "$root/../shared/tools/vkprobe/vkprobe" "$dir/bin/" 2>/dev/null || echo "prep: no vkprobe"
cp "$here"/{vector-activations-run.sh,tiny-set.sh} "$dir/"
cp "$root"/examples/{embryo-1b,dory-1b-32k}.json "$dir/cfg/"
source "$here/tiny-set.sh"
tiny_set_configs "$root" "$dir"
# compile BUILD CONFIG ARGS...: an h200 plan of CONFIG by BUILD's kiln-compile.
compile() { "$1/bin/kiln-compile" --quiet "$2" --cost-target h200 "${@:3}"; }
for f in f16 q8_2f; do
  echo "prep: $f"
  for c in embryo-1b dory-1b-32k; do
    cfg=$dir/cfg/$c.json
    # shellcheck disable=SC2086 # each letter's flags are words
    if [ -n "${BUILD_A:-}" ]; then
      compile "$BUILD_A" "$cfg" --weight-format "$f" ${A_FLAGS:-} -o "$dir/plans/$c.$f.A.kplan"
    else
      compile "$b" "$cfg" --weight-format "$f" ${A_FLAGS---matvec-activations scalar} \
        -o "$dir/plans/$c.$f.A.kplan"
    fi
    # shellcheck disable=SC2086
    compile "$b" "$cfg" --weight-format "$f" ${B_FLAGS:-} -o "$dir/plans/$c.$f.B.kplan"
    for letter in C D E F G; do
      flags=${letter}_FLAGS
      # shellcheck disable=SC2086
      [ -n "${!flags+set}" ] && compile "$b" "$cfg" --weight-format "$f" ${!flags} \
        -o "$dir/plans/$c.$f.$letter.kplan"
    done
    [ -n "${BUILD_C:-}" ] && compile "$BUILD_C" "$cfg" --weight-format "$f" -o "$dir/plans/$c.$f.C.kplan"
  done
  tiny_set_plans "$b/bin/kiln-compile" "$dir" "$f"
done
du -sh "$dir"
