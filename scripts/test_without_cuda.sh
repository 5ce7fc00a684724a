#!/usr/bin/env bash
# Builds and tests colo as on a machine without the CUDA toolkit: configured
# with COLO_CUDA=OFF (the toolkit is not looked for, even where present) and
# nvcc off the PATH, into build-nocuda/. Everything that needs no GPU builds
# and passes; the tests that need nvcc-built programs or the toolkit's
# headers say so as they skip. Benchmarks are not built. Where ccache is
# installed (scripts/setup.sh), every object that compiles as in build/
# comes from its cache (CMakeLists.txt, COLO_CCACHE).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unset LIBRARY_PATH CUDA_HOME CUDA_PATH CUDAToolkit_ROOT
if command -v nvcc >/dev/null; then
  echo "nvcc is still on PATH ($(command -v nvcc)): not a build without CUDA" >&2
  exit 1
fi
cmake -S . -B build-nocuda -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCOLO_WERROR="${COLO_WERROR:-ON}" -DCOLO_CUDA=OFF -DCOLO_BUILD_BENCH=OFF
cmake --build build-nocuda -j"$(nproc)"
if grep -q '/usr/local/cuda\|/cuda/include\|CUDAToolkit' build-nocuda/compile_commands.json; then
  echo "build-nocuda: a translation unit has the CUDA toolkit on its include path" >&2
  exit 1
fi
ctest --test-dir build-nocuda --output-on-failure -j"$(nproc)"
