#!/usr/bin/env bash
# Runs a collocation study and prints the aggregate throughput of N copies of
# a training job (MODE-N.yaml, N = 1, 2, 3, 7) relative to one exclusive job,
# per sharing mode. Defaults: example (b) in this folder, modes time-slicing,
# mps and mig.
# Usage: examples/collocation/run.sh [path/to/colo] [scenario-folder] [mode...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
colo="${1:-$here/../../build/colo}"
dir="${2:-$here}"
shift $(($# < 2 ? $# : 2))
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(time-slicing mps mig)
printf "%-14s %8s %8s %8s %8s\n" mode 1 2 3 7
for mode in "${modes[@]}"; do
  row="$(printf "%-14s" "$mode")"
  for n in 1 2 3 7; do
    st=$("$colo" sim --json "$dir/$mode-$n.yaml" | python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["system_throughput"])')
    row+="$(printf " %8s" "$st")"
  done
  echo "$row"
done
