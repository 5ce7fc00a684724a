#!/usr/bin/env bash
# The compatibility corpus on a real GPU: every program of
# tests/corpus/programs.txt run natively and then under `colo run` against
# colod in gate mode (`device: cuda`, kernels on the GPU), one program at a
# time. A program passes when both runs exit with the same status and print
# the same standard output ("corpus ok" where its checks held), or when colod
# refuses it as programs.txt expects (`refused CALL`: exit 3 at CALL, with
# colo's announcement on stderr). A program that cannot run natively (a
# library this machine lacks, such as cuBLAS) is reported, not compared.
# Prints one line per program and a summary line starting "corpus_gate:".
#
# Usage: bench/corpus_gate.sh [BUILD_DIR]   (default: build)
# Knobs (environment): PER_PROGRAM_S=30 (each run's limit)
# Exit: 0 when every program that ran natively passed; 1 when one did not;
# 2 when the corpus, colod or colo is missing; 77 when no GPU is visible.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
build=${1:-build}
per_program_s=${PER_PROGRAM_S:-30}
corpus=$build/tests/corpus
list=tests/corpus/programs.txt
if [ ! -x "$build/colod" ] || [ ! -x "$build/colo" ] || [ ! -d "$corpus" ]; then
  echo "corpus_gate: $build lacks colod, colo or tests/corpus (the corpus needs nvcc)" >&2
  exit 2
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "corpus_gate: no GPU visible (nvidia-smi -L failed); the corpus in gate mode needs one" >&2
  exit 77
fi

work=$(mktemp -d /tmp/colo-corpus-gate-XXXXXX)
colod_pid=""
cleanup() {
  [ -n "$colod_pid" ] && kill "$colod_pid" 2>/dev/null && wait "$colod_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

printf 'socket: %s\ndevice: cuda\npolicy: priority\n' "$work/colod.sock" >"$work/colod.yaml"
"$build/colod" --config "$work/colod.yaml" >"$work/colod.log" 2>&1 &
colod_pid=$!
for _ in $(seq 200); do
  [ -S "$work/colod.sock" ] && break
  kill -0 "$colod_pid" 2>/dev/null || break
  sleep 0.05
done
if [ ! -S "$work/colod.sock" ]; then
  echo "corpus_gate: colod did not start:" >&2
  tail -5 "$work/colod.log" >&2
  exit 1
fi

# run NAME MODE: the program's stdout in $work/NAME.MODE.out, stderr in
# .err; prints its exit status (124 when it ran past the limit).
run() {
  local cmd=("$corpus/$1")
  [ "$2" = colod ] && cmd=("$build/colo" run --socket "$work/colod.sock" -- "$corpus/$1")
  timeout -k 5 "$per_program_s" "${cmd[@]}" >"$work/$1.$2.out" 2>"$work/$1.$2.err"
  echo $?
}

same=0 refused_ok=0 no_native=0 failed=0 total=0
failures=""
printf '%-26s %6s %6s  %s\n' program native colod verdict
while IFS='|' read -r name _ expected; do
  name=$(echo "$name" | tr -d ' ')
  expected=$(echo "$expected" | sed 's/^ *//; s/ *$//')
  [ -x "$corpus/$name" ] || continue
  total=$((total + 1))
  native_rc=$(run "$name" native)
  colod_rc=$(run "$name" colod)
  if [ "$native_rc" != 0 ] && ! grep -q . "$work/$name.native.out"; then
    verdict="native did not run: $(head -c 160 "$work/$name.native.err" | head -1)"
    no_native=$((no_native + 1))
  elif [ "$native_rc" = "$colod_rc" ] && cmp -s "$work/$name.native.out" "$work/$name.colod.out"; then
    verdict=same
    same=$((same + 1))
  elif [ "${expected%% *}" = refused ] && [ "$colod_rc" = 3 ] &&
    grep -q "colo: ${expected#refused } is not supported" "$work/$name.colod.err"; then
    verdict="refused as expected (${expected#refused })"
    refused_ok=$((refused_ok + 1))
  else
    verdict="DIFFERENT: native '$(head -1 "$work/$name.native.out")', colod '$(head -1 "$work/$name.colod.out")' $(grep -m1 '^colo.*\(not supported\|error\)' "$work/$name.colod.err")"
    failed=$((failed + 1))
    failures="$failures $name"
  fi
  printf '%-26s %6s %6s  %s\n' "$name" "$native_rc" "$colod_rc" "$verdict"
done < <(grep -E '^[a-z0-9_]+ *\|' "$list")

kill -0 "$colod_pid" 2>/dev/null || { echo "corpus_gate: colod died during the corpus:" >&2; tail -5 "$work/colod.log" >&2; failed=$((failed + 1)); }
echo "corpus_gate: $total programs: $same same natively and under colod, $refused_ok refused as expected, $no_native could not run natively, $failed differ${failures:+ (${failures# })}"
[ "$failed" = 0 ]
