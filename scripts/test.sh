#!/usr/bin/env bash
# README's test command: installs, builds, runs every test (GoogleTest + lit via ctest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KILN_BUILD_DIR:-$root/build}
start=$(date +%s)
bash "$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)" 2>&1 | tee ctest.log
echo "kiln: build + tests took $(( $(date +%s) - start )) s"
