#!/usr/bin/env bash
# Runs the small-job collocation study: the aggregate throughput of N copies
# of a small training job with an input pipeline (host time and a copy per
# step) relative to one exclusive job, per sharing mode.
# Usage: examples/collocation-small/run.sh [path/to/colo]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../collocation/run.sh" "${1:-$here/../../build/colo}" "$here" mps streams mig time-slicing
