#!/usr/bin/env bash
# Interference on a real GPU: a high-priority inference service
# (tests/cuda_programs/gpu_service: open-loop Poisson requests at LOAD of what
# it serves alone, LAYERS compute-bound kernels of one wave each) beside a
# best-effort trainer (gpu_trainer: back-to-back kernels), for each trainer
# kernel in BE_KERNEL_US: US (one wave of US-long blocks) or USxW (W waves of
# blocks of US / W each: gpu_trainer --waves W, a kernel that slices and
# persistent workers can cut between blocks), shared these ways (SHARINGS):
#   native             two processes, two contexts: the driver time-slices them
#   mps, mps-priority  under the MPS daemon (if nvidia-cuda-mps-control is
#                      there), the second with CUDA_MPS_CLIENT_PRIORITY=1
#                      (below normal) for the trainer
#   colod              both under `colo run` against colod in gate mode
#                      (device: cuda), for each POLICY in POLICIES
#   colod-depth1       colod priority with gate_depth 1: no launch granted
#                      ahead, the trainer's kernels one at a time
#   colod-mps          colod priority with `mps: managed`: colod runs the MPS
#                      control daemon and its clients' contexts share one
#                      MPS server (a row of dashes if colod cannot start it)
#   colod-alone        (once, after the trainers) the service alone under
#                      colod priority, with gate_depth 8 and 1
# Prints one table: the service's p50/p99 request latency and its p99
# overhead over the service alone (native), the trainer's throughput while
# the service ran over its throughput alone, and their sum (system
# throughput; the service's part is its request rate over its rate alone).
#
# Usage: bench/real_interference.sh [BUILD_DIR]     (default: build)
# Knobs (environment): SECONDS_PER_RUN=6 LOAD=0.5 LAYERS=4 LAYER_US=250
#   BE_KERNEL_US="50 2000x40 2000" POLICIES="mps time-slice priority" SEED=7
#   SHARINGS="native mps mps-priority colod colod-depth1 colod-mps colod-alone"
# Needs a GPU: without one it says so and exits 1. Nothing here is run by the
# tests; the figures go into docs/measurements/real-interference-h100.md.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-6}
LOAD=${LOAD:-0.5}
LAYERS=${LAYERS:-4}
LAYER_US=${LAYER_US:-250}
BE_KERNEL_US=${BE_KERNEL_US:-"50 2000x40 2000"}
POLICIES=${POLICIES:-"mps time-slice priority"}
SHARINGS=${SHARINGS:-"native mps mps-priority colod colod-depth1 colod-mps colod-alone"}
sharing() { case " $SHARINGS " in *" $1 "*) return 0 ;; esac; return 1; }
SEED=${SEED:-7}
SVC=$BUILD/tests/cuda_programs/gpu_service
TRN=$BUILD/tests/cuda_programs/gpu_trainer
NEEDS=("$SVC" "$TRN")
case " $SHARINGS " in *" colod"*) NEEDS+=("$BUILD/colod" "$BUILD/colo") ;; esac
for f in "${NEEDS[@]}"; do
  [ -x "$f" ] || { echo "real_interference: $f is missing (build first; needs nvcc)" >&2; exit 1; }
done
WORK=$(mktemp -d /tmp/colo-real.XXXXXX)
COLOD_PID=""
MPS_ON=0
cleanup() {
  [ -n "$COLOD_PID" ] && kill "$COLOD_PID" 2>/dev/null
  [ "$MPS_ON" = 1 ] && echo quit | CUDA_MPS_PIPE_DIRECTORY=$WORK/mps nvidia-cuda-mps-control >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT

val() { sed -n "s/^$1=//p" "$2" | head -1; }

if ! timeout 60 "$SVC" calibrate "$LAYER_US" >"$WORK/cal_svc" 2>&1; then
  echo "real_interference: needs a GPU: gpu_service could not run a kernel:" >&2
  cat "$WORK/cal_svc" >&2
  exit 1
fi
SVC_ITERS=$(val iters "$WORK/cal_svc")
SVC_LAYER_US=$(val layer_us "$WORK/cal_svc")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null |
  sed 's/^/gpu: /'
echo "service: $LAYERS layers of ${SVC_LAYER_US} us (iters=$SVC_ITERS), load $LOAD, ${SECONDS_PER_RUN} s a run"

# The service alone, with requests far apart, gives its busy time; the mean
# gap for LOAD follows from it.
timeout 120 "$SVC" serve 2 "$LAYERS" "$SVC_ITERS" $(awk -v l="$LAYERS" -v u="$SVC_LAYER_US" 'BEGIN{print l*u*10}') 1 >"$WORK/busy" || exit 1
BUSY_US=$(val busy_us "$WORK/busy")
GAP_US=$(awk -v b="$BUSY_US" -v l="$LOAD" 'BEGIN{printf "%.0f", b/l}')
echo "service alone: ${BUSY_US} us a request; mean gap ${GAP_US} us"

run_service() {  # OUT PREFIX...
  local out=$1; shift
  rm -f "$out"
  timeout $((SECONDS_PER_RUN * 4 + 60)) "$@" "$SVC" serve "$SECONDS_PER_RUN" "$LAYERS" "$SVC_ITERS" "$GAP_US" "$SEED" >"$out" 2>&1
}
run_trainer_bg() {  # OUT ITERS PREFIX...
  local out=$1 iters=$2; shift 2
  rm -f "$out" "$WORK/stop"
  # It stops when the script creates $WORK/stop (the service has ended).
  # TRN_WAVES_OPT: "" or "--waves W", split on purpose.
  # shellcheck disable=SC2086
  timeout $((SECONDS_PER_RUN * 4 + 60)) "$@" "$TRN" train $((SECONDS_PER_RUN * 3 + 20)) "$iters" "$WORK/stop" $TRN_WAVES_OPT >"$out" 2>&1 &
  TRN_PID=$!
  for _ in $(seq 1 600); do
    grep -q '^ready' "$out" 2>/dev/null && return 0
    kill -0 "$TRN_PID" 2>/dev/null || break
    sleep 0.05
  done
  echo "real_interference: the trainer did not start:" >&2
  cat "$out" >&2
  [ -n "$COLOD_PID" ] && tail -5 "$WORK/colod/log" >&2
  return 1
}
# run_pair TRN_PREFIX... :: SVC_PREFIX... : the trainer (until it is ready),
# then the service, then the trainer is told to stop; outputs in $WORK/trn
# and $WORK/svc. A prefix runs the program (env settings, colo run ... --).
run_pair() {
  local trn=()
  while [ $# -gt 0 ] && [ "$1" != "::" ]; do trn+=("$1"); shift; done
  shift
  run_trainer_bg "$WORK/trn" "$TRN_ITERS" "${trn[@]}" && run_service "$WORK/svc" "$@"
  touch "$WORK/stop"; wait "$TRN_PID"
}
# Trainer kernels per second between the service's start and end.
trainer_rate() {  # TRAINER_OUT SERVICE_OUT
  awk -v s="$(val serve_start_us "$2")" -v e="$(val serve_end_us "$2")" '
    $1 == "done" { t = $2; n = $3
      if (t <= s) { t0 = t; n0 = n }
      if (t >= e && t1 == "") { t1 = t; n1 = n } }
    END { if (t0 == "" || t1 == "" || t1 <= t0) print "nan"; else printf "%.3f", (n1 - n0) / (t1 - t0) * 1e6 }' "$1"
}
# Trainer alone: kernels per second over its whole run.
trainer_solo_rate() {  # TRAINER_OUT
  awk '$1 == "done" { if (t0 == "") { t0 = $2; n0 = $3 } t = $2; n = $3 }
       END { if (t0 == "" || t <= t0) print "nan"; else printf "%.3f", (n - n0) / (t - t0) * 1e6 }' "$1"
}
service_rate() {  # SERVICE_OUT: requests per second
  awk -v r="$(val requests "$1")" -v s="$(val serve_start_us "$1")" -v e="$(val serve_end_us "$1")" \
    'BEGIN { printf "%.3f", r / (e - s) * 1e6 }'
}

start_colod() {  # POLICY [CONFIG_LINE]
  local dir=$WORK/colod
  rm -rf "$dir"
  mkdir -p "$dir"
  cat >"$dir/c.yaml" <<EOF
socket: $dir/colod.sock
device: cuda
policy: $1
grants:
  - {token: "svc", class: high}
kernels:
  - {name: service_layer, duration_us: $SVC_LAYER_US}
  - {name: trainer_step, duration_us: $TRN_KERNEL_US}
${2:-}
EOF
  "$BUILD/colod" --config "$dir/c.yaml" >"$dir/log" 2>&1 &
  COLOD_PID=$!
  for _ in $(seq 1 200); do
    [ -S "$dir/colod.sock" ] && return 0
    kill -0 "$COLOD_PID" 2>/dev/null || break
    sleep 0.05
  done
  echo "real_interference: colod did not start:" >&2
  cat "$dir/log" >&2
  return 1
}
stop_colod() {
  # How the best-effort class's kernels ran: grants, of them slices and
  # persistent workers, retreats, and forms the client could not build.
  "$BUILD/colo" top --socket "$WORK/colod/colod.sock" --once --json 2>/dev/null |
    python3 -c 'import json, sys
c = json.load(sys.stdin)["classes"].get("best-effort", {})
keys = ("grants", "slice_grants", "persistent_grants", "retreats", "run_whole")
print("colod %s forms: %s" % (sys.argv[1], " ".join("%s=%s" % (k, c.get(k, "-")) for k in keys)))' "$1" || true
  kill "$COLOD_PID" 2>/dev/null
  wait "$COLOD_PID" 2>/dev/null
  echo "colod $1: $(grep -c . "$WORK/colod/log") log lines; last: $(tail -1 "$WORK/colod/log")"
  [ -e "$WORK/colod/colod.sock" ] && echo "colod $1: left its socket behind"
  COLOD_PID=""
}

ROWS=$WORK/rows
# row MODE BE_LABEL SERVICE_OUT TRAINER_OUT (BE_LABEL: the trainer kernel's
# us, "US/Ww" for one of W waves)
row() {
  local p50 p99 be svc
  p50=$(val p50_us "$3"); p99=$(val p99_us "$3")
  if [ -z "$p99" ]; then
    echo "real_interference: $1 (trainer ${2} us): the service failed:" >&2
    cat "$3" >&2
    printf '%-24s %10s %9s %9s %9s %8s %8s %8s\n' "$1" "$2" "-" "-" "-" "-" "-" "-" >>"$ROWS"
    return
  fi
  svc=$(awk -v a="$(service_rate "$3")" -v b="$SOLO_SVC_RATE" 'BEGIN{printf "%.3f", a/b}')
  if [ -n "$4" ]; then
    be=$(awk -v a="$(trainer_rate "$4" "$3")" -v b="$TRN_SOLO_RATE" 'BEGIN{printf "%.3f", a/b}')
  else
    be=0
  fi
  printf '%-24s %10s %9.0f %9.0f %8.1f%% %8s %8.3f %8.3f\n' "$1" "$2" "$p50" "$p99" \
    "$(awk -v a="$p99" -v b="$SOLO_P99" 'BEGIN{print (a/b-1)*100}')" "$(val dropped "$3")" "$be" \
    "$(awk -v a="$svc" -v b="$be" 'BEGIN{print a+b}')" >>"$ROWS"
}

run_service "$WORK/svc_solo" || { cat "$WORK/svc_solo" >&2; exit 1; }
SOLO_P99=$(val p99_us "$WORK/svc_solo")
SOLO_SVC_RATE=$(service_rate "$WORK/svc_solo")
printf '%-24s %10s %9s %9s %9s %8s %8s %8s\n' "sharing" "be_k_us" "p50_us" "p99_us" "p99_ovh" "dropped" "be_norm" "system" >"$ROWS"
TRN_SOLO_RATE=1
row "service alone" "-" "$WORK/svc_solo" ""

# colod_pair POLICY LABEL BE_LABEL [CONFIG_LINE]: the pair under colod, one
# row; a colod that does not start gives a row of dashes.
colod_pair() {
  if ! start_colod "$1" "${4:-}"; then
    printf '%-24s %10s %9s %9s %9s %8s %8s %8s\n' "$2" "$3" "-" "-" "-" "-" "-" "-" >>"$ROWS"
    [ -n "$COLOD_PID" ] && kill "$COLOD_PID" 2>/dev/null && wait "$COLOD_PID" 2>/dev/null
    COLOD_PID=""
    return
  fi
  SOCK=$WORK/colod/colod.sock
  run_pair "$BUILD/colo" run --socket "$SOCK" -- :: \
    "$BUILD/colo" run --socket "$SOCK" --class high --token svc --
  stop_colod "${2#colod }"
  row "$2" "$3" "$WORK/svc" "$WORK/trn"
}

HAVE_MPS=0
command -v nvidia-cuda-mps-control >/dev/null 2>&1 && HAVE_MPS=1
for BE_SPEC in $BE_KERNEL_US; do
  BE=${BE_SPEC%%x*}
  WAVES=1
  [ "$BE_SPEC" != "$BE" ] && WAVES=${BE_SPEC#*x}
  TRN_WAVES_OPT=""
  [ "$WAVES" -gt 1 ] && TRN_WAVES_OPT="--waves $WAVES"
  # shellcheck disable=SC2086
  timeout 60 "$TRN" calibrate "$BE" $TRN_WAVES_OPT >"$WORK/cal_trn" 2>&1 || { cat "$WORK/cal_trn" >&2; exit 1; }
  TRN_ITERS=$(val iters "$WORK/cal_trn")
  TRN_KERNEL_US=$(val kernel_us "$WORK/cal_trn")
  BE_LABEL=$TRN_KERNEL_US
  [ "$WAVES" -gt 1 ] && BE_LABEL="$TRN_KERNEL_US/${WAVES}w"
  echo "trainer: kernels of ${TRN_KERNEL_US} us, $WAVES wave(s) (iters=$TRN_ITERS)"
  run_trainer_bg "$WORK/trn_solo" "$TRN_ITERS" || exit 1
  sleep "$SECONDS_PER_RUN"; touch "$WORK/stop"; wait "$TRN_PID"
  TRN_SOLO_RATE=$(trainer_solo_rate "$WORK/trn_solo")
  echo "trainer alone: $TRN_SOLO_RATE kernels/s"

  if sharing native; then
    run_pair ::
    row "native (time-sliced)" "$BE_LABEL" "$WORK/svc" "$WORK/trn"
  fi

  if [ "$HAVE_MPS" = 1 ] && { sharing mps || sharing mps-priority; }; then
    mkdir -p "$WORK/mps"
    export CUDA_MPS_PIPE_DIRECTORY=$WORK/mps CUDA_MPS_LOG_DIRECTORY=$WORK/mps
    if nvidia-cuda-mps-control -d; then
      MPS_ON=1
      if sharing mps; then
        run_pair ::
        row "mps" "$BE_LABEL" "$WORK/svc" "$WORK/trn"
      fi
      if sharing mps-priority; then
        run_pair env CUDA_MPS_CLIENT_PRIORITY=1 ::
        row "mps-priority" "$BE_LABEL" "$WORK/svc" "$WORK/trn"
      fi
      echo quit | nvidia-cuda-mps-control >/dev/null 2>&1
      MPS_ON=0
      sleep 1
    fi
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  elif sharing mps || sharing mps-priority; then
    echo "real_interference: nvidia-cuda-mps-control not found: no mps rows"
  fi

  if sharing colod; then
    for P in $POLICIES; do colod_pair "$P" "colod $P" "$BE_LABEL"; done
  fi
  # priority with one launch granted at a time (gate_depth 1): the
  # trainer's kernels never granted ahead.
  if sharing colod-depth1; then
    colod_pair priority "colod priority depth 1" "$BE_LABEL" "gate_depth: 1"
  fi
  # colod priority over MPS: colod starts and stops the MPS control daemon
  # itself, and `colo run` puts its clients on it (CUDA_MPS_PIPE_DIRECTORY
  # from colod's stats).
  if sharing colod-mps; then
    colod_pair priority "colod priority + mps" "$BE_LABEL" "mps: managed"
  fi
done
if sharing colod-alone; then
  # The service alone under colod: what colod's own path adds.
  start_colod priority || exit 1
  run_service "$WORK/svc" "$BUILD/colo" run --socket "$WORK/colod/colod.sock" --class high --token svc --
  stop_colod priority
  row "service alone, colod" "-" "$WORK/svc" ""
  # The same with each of its kernels granted once the one before it ended
  # (gate_depth 1) instead of 8 ahead.
  start_colod priority "gate_depth: 1" || exit 1
  run_service "$WORK/svc" "$BUILD/colo" run --socket "$WORK/colod/colod.sock" --class high --token svc --
  stop_colod priority
  row "alone, colod depth 1" "-" "$WORK/svc" ""
fi
echo
cat "$ROWS"
