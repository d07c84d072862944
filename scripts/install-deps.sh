#!/usr/bin/env bash
# Installs Kiln's Debian 12 build and test dependencies when any is missing.
set -euo pipefail
packages=(
  cmake ninja-build ccache g++ pkg-config python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  spirv-tools spirv-cross libspirv-cross-c-shared-dev
  flatbuffers-compiler libflatbuffers-dev nlohmann-json3-dev libgtest-dev
  pybind11-dev python3-pybind11 python3-dev python3-numpy python3-pytest
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "kiln: all Debian packages present"
  exit 0
fi
echo "kiln: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
