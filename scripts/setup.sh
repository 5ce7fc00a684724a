#!/usr/bin/env bash
# Installs colo's build dependencies from Debian's archive (idempotent) and
# builds everything into ./build. Safe to run again: apt skips what is there,
# CMake rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev libeigen3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libzstd-dev liblz4-dev
  libsqlite3-dev  # src/runs: the runs database
  python3 clang-format ccache
  clang-14 libclang-rt-14-dev llvm-14  # scripts/fuzz.sh: libFuzzer, sanitizers, symbolizer
  slurmctld slurmd slurm-client libslurm-dev munge slurm-wlm-basic-plugins lua5.3 lua-socket  # slurm/, tests/slurm
  prometheus  # tests: a real Prometheus scrapes colod's metrics
  chromium libjs-chart.js  # colo report: Chart.js embedded; tests load the page in headless Chromium
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOLO_WERROR="${COLO_WERROR:-ON}"
cmake --build build -j"$(nproc)"
