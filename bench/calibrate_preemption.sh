#!/usr/bin/env bash
# The costs the simulated GPU assumes for preemptible kernel forms and for the
# driver's time slicing, measured on a real GPU
# (tests/cuda_programs/preemption_costs;
# docs/measurements/preemption-costs-h100.md has the figures and the SimGpu defaults set from them):
#   persistent  overhead of persistent workers over the whole kernel, for
#               logical blocks of BLOCKS_US (flag in device / mapped memory)
#   retreat     time from a retreat request (a flag in device memory) until
#               a worker saw it and until every worker left, for logical
#               blocks of RETREAT_US
#   slices      GPU idle time between one-wave slices, queued and launched
#               as the previous one ends
#   timeslice   two contexts spinning at once: the driver's quantum and the
#               time each is off the GPU (and one alone, for the baseline);
#               then one spinning beside gpu_trainer's full waves of
#               TRAINER_US kernels
#   corun       a service kernel of k blocks per SM alone and beside
#               persistent workers of CORUN_THREADS threads in the other slots
#               (what harvesting does to the service)
#
# Usage: bench/calibrate_preemption.sh [BUILD_DIR]        (default: build)
# Knobs (environment): BLOCKS_US="5 20 100" RETREAT_US="2 20 100"
#   TRIALS=30 SLICE_US="20 100" SLICES=8 TIMESLICE_MS=3000 TRAINER_US=2000
#   CORUN_US=50 CORUN_THREADS="256 64 32"
# Needs a GPU: without one it says so and exits 1. Not run by the tests.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
BLOCKS_US=${BLOCKS_US:-"5 20 100"}
RETREAT_US=${RETREAT_US:-"2 20 100"}
TRIALS=${TRIALS:-30}
SLICE_US=${SLICE_US:-"20 100"}
SLICES=${SLICES:-8}
TIMESLICE_MS=${TIMESLICE_MS:-3000}
TRAINER_US=${TRAINER_US:-2000}
CORUN_US=${CORUN_US:-50}
CORUN_THREADS=${CORUN_THREADS:-"256 64 32"}
PROG=$BUILD/tests/cuda_programs/preemption_costs
[ -x "$PROG" ] || { echo "calibrate_preemption: $PROG is missing (build first; needs nvcc)" >&2; exit 1; }
WORK=$(mktemp -d /tmp/colo-calibrate.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
val() { sed -n "s/^$1=//p" "$2" | head -1; }

if ! timeout 120 "$PROG" persistent 20 >"$WORK/probe" 2>&1; then
  echo "calibrate_preemption: needs a GPU: preemption_costs could not run a kernel:" >&2
  cat "$WORK/probe" >&2
  exit 1
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null |
  sed 's/^/gpu: /'
echo "sms=$(val sms "$WORK/probe") blocks/SM: whole $(val whole_per_sm "$WORK/probe"), persistent $(val persistent_per_sm "$WORK/probe")"

echo
echo "persistent workers (one wave) vs the whole kernel (16 waves), median of 7"
printf '%-10s %-10s %-12s %-10s %-14s %-12s %-14s\n' block_us whole_us persistent overhead us/block mapped_ovh mapped_us/block
for b in $BLOCKS_US; do
  f=$WORK/persistent_$b
  timeout 300 "$PROG" persistent "$b" >"$f" 2>&1 || { echo "persistent $b failed:"; cat "$f"; continue; }
  printf '%-10s %-10s %-12s %-10s %-14s %-12s %-14s\n' "$(val block_us "$f")" "$(val whole_us "$f")" \
    "$(val persistent_us "$f")" "$(val overhead "$f")" "$(val per_block_us "$f")" \
    "$(val mapped_overhead "$f")" "$(val mapped_per_block_us "$f")"
done

echo
echo "retreat, $TRIALS trials each (us from the request, host clock): p50 / p90 / max"
printf '%-9s %-24s %-24s %s\n' block_us "first saw the flag" "last left" exactly_once
for b in $RETREAT_US; do
  f=$WORK/retreat_$b
  timeout 300 "$PROG" retreat "$b" "$TRIALS" >"$f" 2>&1 || { echo "retreat $b failed:"; cat "$f"; }
  s() { echo "$(val "$1_p50" "$f") / $(val "$1_p90" "$f") / $(val "$1_max" "$f")"; }
  printf '%-9s %-24s %-24s %s\n' "$b" "$(s seen_us)" "$(s exit_us)" "$(val exactly_once "$f")"
done

echo
echo "one-wave slices, $SLICES of them, 5 runs: GPU idle between slices (us) p50 / p90 / max"
printf '%-9s %-9s %-12s %-22s %-14s %s\n' block_us whole_us queued_sum "queued gap" on_done_sum "on-completion gap"
for b in $SLICE_US; do
  f=$WORK/slices_$b
  timeout 300 "$PROG" slices "$b" "$SLICES" >"$f" 2>&1 || { echo "slices $b failed:"; cat "$f"; continue; }
  g() { echo "$(val "$1_p50" "$f") / $(val "$1_p90" "$f") / $(val "$1_max" "$f")"; }
  printf '%-9s %-9s %-12s %-22s %-14s %s\n' "$b" "$(val whole_us "$f")" "$(val queued_slices_us "$f")" \
    "$(g queued_gap_us)" "$(val on_completion_slices_us "$f")" "$(g on_completion_gap_us)"
done

echo
echo "time slicing: a context spinning for ${TIMESLICE_MS} ms; on = runs between gaps, off = gaps > 20 us (us)"
timeout 120 "$PROG" timeslice 500 >"$WORK/ts_alone" 2>&1
echo "alone: off_count=$(val off_count "$WORK/ts_alone") off p50 $(val off_us_p50 "$WORK/ts_alone")"
timeout 120 "$PROG" timeslice "$TIMESLICE_MS" >"$WORK/ts_a" 2>&1 &
A=$!
timeout 120 "$PROG" timeslice "$TIMESLICE_MS" >"$WORK/ts_b" 2>&1 &
B=$!
wait $A $B
for x in a b; do
  f=$WORK/ts_$x
  echo "context $x: off_count=$(val off_count "$f") on p10/p50/p90 $(val on_us_p10 "$f") / $(val on_us_p50 "$f") / $(val on_us_p90 "$f")," \
    "off p10/p50/p90 $(val off_us_p10 "$f") / $(val off_us_p50 "$f") / $(val off_us_p90 "$f")"
  grep '^off [0-9]' "$f" | sed 's/^/  /'
done

TRN=$BUILD/tests/cuda_programs/gpu_trainer
if [ -x "$TRN" ] && timeout 60 "$TRN" calibrate "$TRAINER_US" >"$WORK/trn_cal" 2>&1; then
  "$TRN" train $(( TIMESLICE_MS / 1000 + 2 )) "$(val iters "$WORK/trn_cal")" >"$WORK/trn" 2>&1 &
  T=$!
  sleep 1
  timeout 120 "$PROG" timeslice "$TIMESLICE_MS" >"$WORK/ts_t" 2>&1
  wait $T
  f=$WORK/ts_t
  echo "beside gpu_trainer ($(val kernel_us "$WORK/trn_cal") us kernels of full waves): off_count=$(val off_count "$f")" \
    "on p10/p50/p90 $(val on_us_p10 "$f") / $(val on_us_p50 "$f") / $(val on_us_p90 "$f"), off p10/p50/p90" \
    "$(val off_us_p10 "$f") / $(val off_us_p50 "$f") / $(val off_us_p90 "$f")"
else
  echo "gpu_trainer: not run ($TRN missing or failed)"
fi

echo
echo "service kernel (k blocks of 256 threads per SM, ${CORUN_US} us at k = 1) alone and beside persistent workers in the other slots"
printf '%-11s %-3s %-10s %-12s %s\n' be_threads k solo_us beside_us "beside: first block start to last end (us)"
for t in $CORUN_THREADS; do
  f=$WORK/corun_$t
  timeout 300 "$PROG" corun "$CORUN_US" "$t" >"$f" 2>&1 || { echo "corun $t failed:"; cat "$f"; continue; }
  for k in 1 2 4; do
    printf '%-11s %-3s %-10s %-12s %s\n' "$t" "$k" "$(val solo_us_$k "$f")" "$(val beside_us_$k "$f")" \
      "$(val beside_span_us_$k "$f")"
  done
done
