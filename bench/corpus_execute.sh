#!/usr/bin/env bash
# What `execute: true` costs: every program of the compatibility corpus
# (tests/corpus/programs.txt) run with `colo run` against colod on the
# simulated GPU twice in the same session, on the same machine, one program
# at a time: with kernels computing on colo's PTX interpreter (`execute:
# true`) and without (simulated time only). Prints per program the wall
# time of each run and their ratio, and, from the interposer's own count
# (COLO_EXECUTE_STATS=1), the kernels that ran on the interpreter, their
# thread-instructions and the interpreter's time; then the totals and the
# interpreter's rates (kernels and thread-instructions per second of its
# own time).
#
# Usage: bench/corpus_execute.sh [BUILD_DIR]   (default: build)
# Needs the corpus built (nvcc); prints one line and exits 2 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
corpus="$build/tests/corpus"
if [ ! -x "$corpus/vector_add" ] || [ ! -x "$build/colod" ] || [ ! -x "$build/colo" ]; then
  echo "corpus_execute: $corpus has no programs (built with nvcc), or $build/colod or $build/colo is missing" >&2
  exit 2
fi
work=$(mktemp -d /tmp/colo-corpus-bench-XXXXXX)
colod_pid=""
cleanup() { [ -n "$colod_pid" ] && kill "$colod_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# Starts colod with `execute: $1`; sets colod_pid.
start_colod() {
  if [ -n "$colod_pid" ]; then kill "$colod_pid" 2>/dev/null; wait "$colod_pid" 2>/dev/null || true; fi
  rm -f "$work/colod.sock"
  printf 'socket: %s\ngpu: H100\nexecute: %s\n' "$work/colod.sock" "$1" > "$work/colod.yaml"
  "$build/colod" --config "$work/colod.yaml" > "$work/colod-$1.log" 2>&1 &
  colod_pid=$!
  for _ in $(seq 100); do [ -S "$work/colod.sock" ] && return 0; sleep 0.05; done
  echo "corpus_execute: colod did not start" >&2; exit 1
}

# Runs program $1 as users do (`colo run`), its stderr in $work/$1.$2.err;
# prints its wall time in seconds.
run_one() {
  local start end
  start=$(date +%s.%N)
  COLO_EXECUTE_STATS=1 timeout 300 "$build/colo" run --socket "$work/colod.sock" \
    -- "$corpus/$1" > /dev/null 2> "$work/$1.$2.err" || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

programs=$(grep -E '^[a-z0-9_]+ *\|' tests/corpus/programs.txt | cut -d'|' -f1 | tr -d ' ')
declare -A plain execute
start_colod false
for p in $programs; do plain[$p]=$(run_one "$p" plain); done
start_colod true
for p in $programs; do execute[$p]=$(run_one "$p" execute); done

printf '%-22s %9s %9s %6s %8s %14s %10s\n' program plain_s execute_s ratio kernels instructions interp_s
total_plain=0; total_exec=0; total_kernels=0; total_instr=0; total_interp=0
for p in $programs; do
  # "colo: execute: K kernels, I thread-instructions, T s on the PTX interpreter"
  line=$(grep -E '^colo: execute: ' "$work/$p.execute.err" | tail -1 || true)
  k=$(echo "$line" | awk '{print $3}'); i=$(echo "$line" | awk '{print $5}'); t=$(echo "$line" | awk '{print $7}')
  k=${k:-0}; i=${i:-0}; t=${t:-0}
  printf '%-22s %9.3f %9.3f %6.2f %8d %14d %10.4f\n' "$p" "${plain[$p]}" "${execute[$p]}" \
    "$(echo "${execute[$p]} / ${plain[$p]}" | bc -l)" "$k" "$i" "$t"
  total_plain=$(echo "$total_plain + ${plain[$p]}" | bc -l)
  total_exec=$(echo "$total_exec + ${execute[$p]}" | bc -l)
  total_kernels=$((total_kernels + k)); total_instr=$((total_instr + i))
  total_interp=$(echo "$total_interp + $t" | bc -l)
done
printf '%-22s %9.3f %9.3f %6.2f %8d %14d %10.4f\n' total "$total_plain" "$total_exec" \
  "$(echo "$total_exec / $total_plain" | bc -l)" "$total_kernels" "$total_instr" "$total_interp"
printf 'interpreter: %.0f kernels/s, %.3g thread-instructions/s of its own time\n' \
  "$(echo "$total_kernels / $total_interp" | bc -l)" "$(echo "$total_instr / $total_interp" | bc -l)"
