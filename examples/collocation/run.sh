#!/usr/bin/env bash
# Runs the collocation study (example b) and prints the aggregate throughput of
# N copies of a small training job relative to one exclusive job, per mode.
# Usage: examples/collocation/run.sh [path/to/colo]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
colo="${1:-$here/../../build/colo}"
printf "%-14s %8s %8s %8s %8s\n" mode 1 2 3 7
for mode in time-slicing mps mig; do
  row="$(printf "%-14s" "$mode")"
  for n in 1 2 3 7; do
    st=$("$colo" sim --json "$here/$mode-$n.yaml" | python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["system_throughput"])')
    row+="$(printf " %8s" "$st")"
  done
  echo "$row"
done
