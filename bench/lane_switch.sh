#!/usr/bin/env bash
# The cost of a switch between two programs of one memory lane in colod
# (issue 39, "Live"): colod with `jobs: {policy: fair}` on the simulated GPU
# and PROGRAMS lane_trainer programs (tests/cuda_programs, nvcc-built) that
# declare memory through `colo run --memory-persistent --memory-ephemeral`,
# one lane, ITERATIONS iterations each of KERNELS kernels of KERNEL_US.
# colod times each switch from the holder's synchronizing call found done
# to the next holder's first launch taken from its ring (LiveLanes,
# `switch_us` of `colo top --json`); this prints colod's figures after the
# programs end: switches, iterations, and the switch time's mean and max in
# microseconds (p50, p99 of the last 1024, mean, max), and the switches
# per iteration.
#
# Usage: bench/lane_switch.sh [BUILD_DIR]         (default: build)
# Knobs (environment): PROGRAMS=2 ITERATIONS=2000 KERNELS=2 KERNEL_US=500
# No GPU needed; the figures go into docs/measurements/job-sharing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PROGRAMS=${PROGRAMS:-2}
ITERATIONS=${ITERATIONS:-2000}
KERNELS=${KERNELS:-2}
KERNEL_US=${KERNEL_US:-500}
PROGRAM=$BUILD/tests/cuda_programs/lane_trainer
for f in "$BUILD/colod" "$BUILD/colo" "$PROGRAM"; do
  [ -x "$f" ] || { echo "lane_switch: $f not built" >&2; exit 1; }
done
DIR=$(mktemp -d /tmp/colo-lane-switch-XXXXXX)
COLOD_PID=""
cleanup() {
  [ -n "$COLOD_PID" ] && kill "$COLOD_PID" 2>/dev/null && wait "$COLOD_PID" 2>/dev/null
  rm -rf "$DIR"
}
trap cleanup EXIT
cat > "$DIR/colod.yaml" <<CFG
socket: $DIR/colod.sock
gpu: A100
kernels:
  - {name: lane_step, duration_us: $KERNEL_US}
jobs:
  policy: fair
CFG
"$BUILD/colod" --config "$DIR/colod.yaml" 2> "$DIR/colod.log" &
COLOD_PID=$!
for _ in $(seq 100); do [ -S "$DIR/colod.sock" ] && break; sleep 0.05; done
pids=()
for i in $(seq "$PROGRAMS"); do
  "$BUILD/colo" run --socket "$DIR/colod.sock" --memory-persistent 1GiB \
    --memory-ephemeral 256MiB -- "$PROGRAM" "$ITERATIONS" 64 16 "$KERNELS" \
    > "$DIR/p$i.out" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || { echo "a program failed:" >&2; cat "$DIR"/p*.out >&2; exit 1; }; done
"$BUILD/colo" top --socket "$DIR/colod.sock" --once --json > "$DIR/stats.json"
python3 - "$DIR/stats.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
lanes = j["lanes"]
s = lanes["switch_us"]
print(f"switches={lanes['switches']} iterations={lanes['iterations']} "
      f"switches_per_iteration={lanes['switches'] / max(lanes['iterations'], 1):.2f} "
      f"switch_us_measured={s['measured']} p50={s['p50']:.1f} p99={s['p99']:.1f} "
      f"mean={s['mean']:.1f} max={s['max']:.1f}")
PY
