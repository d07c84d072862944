#!/usr/bin/env bash
# ctest install-embed: `cmake --install` into a temporary prefix, examples/embed configured
# and built against it with find_package(KilnRuntime), run on the Vulkan device: its greedy
# tokens must equal the installed kiln-run's.
#
#   install-embed.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?usage: install-embed.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: install-embed.sh BUILD_DIR SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
for f in include/kiln/runtime.h lib/cmake/KilnRuntime/KilnRuntimeConfig.cmake \
         lib/cmake/KilnRuntime/KilnRuntimeConfigVersion.cmake bin/kiln-run bin/kiln-compile; do
  [ -e "$prefix/$f" ] || { echo "install-embed: $f was not installed"; exit 1; }
done
ls "$prefix"/lib/libkiln-runtime.so* > /dev/null

gen=(); command -v ninja > /dev/null && gen=(-G Ninja)
# The installed package only: no hint of the build tree.
cmake -S "$src/examples/embed" -B "$tmp/embed" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/configure.log" ||
  { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/embed" > "$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }

"$prefix/bin/kiln-compile" --quiet "$src/examples/dory-tiny.json" --weight-format f16 -o "$tmp/m.kplan"
"$prefix/bin/kiln-synth" --quiet --config "$src/examples/dory-tiny.json" --format f16 --seed 5 \
  -o "$tmp/w.safetensors"
expected=$("$prefix/bin/kiln-run" "$tmp/m.kplan" --weights "$tmp/w.safetensors" \
  --prompt 7,3,9,1 --max-new 20 | head -n 1)
got=$("$tmp/embed/embed" "$tmp/m.kplan" "$tmp/w.safetensors" 7,3,9,1 20)
echo "kiln-run: $expected"
echo "embed:    $got"
[ "$got" = "$expected" ] || { echo "install-embed: embed's tokens differ from kiln-run's"; exit 1; }

# The installed kiln-compile reads the installed target descriptors: one removed there is
# missing, named by its installed path.
rm "$prefix/share/kiln/targets/lavapipe.json"
if "$prefix/bin/kiln-compile" --quiet "$src/examples/dory-tiny.json" --weight-format f16 \
     --cost-target lavapipe -o "$tmp/l.kplan" 2> "$tmp/target.log"; then
  echo "install-embed: the installed kiln-compile did not read share/kiln/targets"; exit 1
fi
grep -qF "$prefix/share/kiln/targets/lavapipe.json" "$tmp/target.log" || { cat "$tmp/target.log"; exit 1; }

# A bad path is a status, reported with its code, not a crash.
if "$tmp/embed/embed" "$tmp/missing.kplan" "$tmp/w.safetensors" 2> "$tmp/err.log"; then
  echo "install-embed: embed accepted a missing plan"; exit 1
fi
grep -q "embed: plan: NOT_FOUND: " "$tmp/err.log" || { cat "$tmp/err.log"; exit 1; }
echo "install-embed: PASS"
