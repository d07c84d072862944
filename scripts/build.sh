#!/usr/bin/env bash
# Configures and builds Kiln (Release) into ${KILN_BUILD_DIR:-build}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KILN_BUILD_DIR:-$root/build}
bash "$root/scripts/install-deps.sh"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release ${KILN_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
