#!/usr/bin/env bash
# What `execute: true` costs: every program of the compatibility corpus
# (tests/corpus/programs.txt) run under colod on the simulated GPU twice in
# the same session, with kernels computing on colo's PTX interpreter
# (`execute: true`) and without (kernels take simulated time only), on the
# same machine, one program at a time. Prints per program the wall time of
# each run, their ratio and the kernels it launched (colod's count); then
# the totals and the interpreter's rate: kernels launched per second of the
# execute run's time over the plain run's (time the interpreter added).
#
# Usage: bench/corpus_execute.sh [BUILD_DIR]   (default: build)
# Needs the corpus built (nvcc); prints one line and exits 2 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
corpus="$build/tests/corpus"
if [ ! -x "$corpus/vector_add" ] || [ ! -x "$build/colod" ]; then
  echo "corpus_execute: $corpus has no programs (built with nvcc) or $build/colod is missing" >&2
  exit 2
fi
work=$(mktemp -d /tmp/colo-corpus-bench-XXXXXX)
colod_pid=""
cleanup() { [ -n "$colod_pid" ] && kill "$colod_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# Starts colod with `execute: $1`; sets colod_pid.
start_colod() {
  [ -n "$colod_pid" ] && kill "$colod_pid" 2>/dev/null && wait "$colod_pid" 2>/dev/null || true
  rm -f "$work/colod.sock"
  printf 'socket: %s\ngpu: H100\nexecute: %s\n' "$work/colod.sock" "$1" > "$work/colod.yaml"
  "$build/colod" --config "$work/colod.yaml" > "$work/colod-$1.log" 2>&1 &
  colod_pid=$!
  for _ in $(seq 100); do [ -S "$work/colod.sock" ] && return 0; sleep 0.05; done
  echo "corpus_execute: colod did not start" >&2; exit 1
}

# Runs program $1 under the interposer; prints its wall time in seconds.
run_one() {
  local start end
  start=$(date +%s.%N)
  COLO_SOCKET="$work/colod.sock" LD_PRELOAD="$build/libcolo_preload.so" \
    timeout 300 "$corpus/$1" > /dev/null 2>&1 || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

programs=$(grep -E '^[a-z0-9_]+ *\|' tests/corpus/programs.txt | cut -d'|' -f1 | tr -d ' ')
declare -A plain execute
start_colod false
for p in $programs; do plain[$p]=$(run_one "$p"); done
start_colod true
for p in $programs; do execute[$p]=$(run_one "$p"); done
kill "$colod_pid"; wait "$colod_pid" 2>/dev/null || true; colod_pid=""

printf '%-22s %10s %10s %8s %8s\n' program plain_s execute_s ratio kernels
total_plain=0; total_exec=0; total_kernels=0
for p in $programs; do
  # colod's lines: "client N (pid P, uid U, PROGRAM) registered ..." and
  # "client N (pid P) disconnected: K kernels launched, ...".
  id=$(grep -oE "client [0-9]+ \(pid [0-9]+, uid [0-9]+, $p\) registered" "$work/colod-true.log" | head -1 | cut -d' ' -f2 || true)
  k=0
  if [ -n "$id" ]; then
    k=$(grep -oE "client $id \(pid [0-9]+\) disconnected: [0-9]+ kernels" "$work/colod-true.log" | grep -oE '[0-9]+ kernels' | cut -d' ' -f1 || true)
    k=${k:-0}
  fi
  printf '%-22s %10.3f %10.3f %8.1f %8d\n' "$p" "${plain[$p]}" "${execute[$p]}" \
    "$(echo "${execute[$p]} / ${plain[$p]}" | bc -l)" "$k"
  total_plain=$(echo "$total_plain + ${plain[$p]}" | bc -l)
  total_exec=$(echo "$total_exec + ${execute[$p]}" | bc -l)
  total_kernels=$((total_kernels + k))
done
printf '%-22s %10.3f %10.3f %8.1f %8d\n' total "$total_plain" "$total_exec" \
  "$(echo "$total_exec / $total_plain" | bc -l)" "$total_kernels"
printf 'interpreter: %.0f kernels per second of added time\n' \
  "$(echo "$total_kernels / ($total_exec - $total_plain)" | bc -l)"
