#!/usr/bin/env bash
# Runs every test (unit, model, golden, CLI error cases). Builds first.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
