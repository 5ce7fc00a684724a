#!/bin/sh
# The Kelp-like sweep of docs/measurements/host-qos.md: a GPU training job
# with a heavy input pipeline beside streaming aggressors at 0..100% of its
# memory domain's bandwidth, under every host QoS controller.
# Usage: examples/hostqos/run.sh [path/to/colo]
set -e
colo=${1:-build/colo}
dir=$(dirname "$0")
for load in 0 25 50 75 100; do
  "$colo" sim "$dir/kelp-$load.yaml" --controllers all
done
