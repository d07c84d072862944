#!/usr/bin/env bash
# HOUSE.md's dependency rules as a test: the runtime, lib/IO and lib/Reference (and their
# public headers) include no MLIR/LLVM header, and the given binaries (kiln-run, the shared
# runtime, the Python module) link no LLVM/MLIR library.
#
#   scripts/check-deps.sh SOURCE_DIR [BINARY...]
set -euo pipefail
root=${1:?usage: check-deps.sh SOURCE_DIR [BINARY...]}
shift
status=0
dirs=()
for d in runtime lib/IO lib/Reference include/kiln/IO include/kiln/Reference python/src; do
  [ -d "$root/$d" ] && dirs+=("$root/$d")
done
if hits=$(grep -rnE '#[[:space:]]*include[[:space:]]*[<"](mlir|llvm|llvm-c)/' "${dirs[@]}"); then
  echo "check-deps: MLIR/LLVM headers included where HOUSE.md forbids them:"
  echo "$hits"
  status=1
fi
names=()
for binary in "$@"; do
  names+=("$(basename "$binary")")
  if ! libs=$(ldd "$binary" 2>&1); then
    echo "check-deps: ldd $binary failed: $libs"
    status=1
  elif echo "$libs" | grep -iqE 'libLLVM|libMLIR|libclang'; then
    echo "check-deps: $binary links LLVM/MLIR:"
    echo "$libs" | grep -iE 'libLLVM|libMLIR|libclang'
    status=1
  fi
  # Static archives leave no trace in ldd: look for their symbols too.
  if command -v nm > /dev/null && nm -C "$binary" 2>/dev/null | grep -qE ' (llvm|mlir)::'; then
    echo "check-deps: $binary holds LLVM/MLIR symbols (linked statically):"
    nm -C "$binary" | grep -E ' (llvm|mlir)::' | head -5
    status=1
  fi
done
[ $status -eq 0 ] && echo "check-deps: runtime, lib/IO and lib/Reference are MLIR/LLVM-free${names[*]:+; ${names[*]} link neither}"
exit $status
