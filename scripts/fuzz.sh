#!/usr/bin/env bash
# Builds the fuzzers of fuzz/ (libFuzzer, AddressSanitizer + UBSan; clang-14)
# in build-fuzz/ and runs each for SECONDS (default 10) on its seed corpus
# (fuzz/seeds.txt), copied into a work folder: nothing is written into the
# checkout. A crash, a sanitizer report, a leak, a target that exits, runs
# out of memory or hangs on one input (-timeout=10) is a finding: the script
# names the fuzzer and the saved input and exits 1. For each fuzzer it prints
# the executions, their rate and the coverage libFuzzer reached (cov: edges,
# ft: features).
#
# Usage: bash scripts/fuzz.sh [SECONDS] [--out DIR] [--jobs N] [--only A,B]
#                             [--no-build]
#   --out DIR   keep corpora, findings and logs in DIR (reused: a corpus
#               grown there seeds the next run); default: a temporary folder,
#               removed when nothing was found.
#   --jobs N    run N fuzzers at once (default 1; each uses one core).
#   --only A,B  run only these fuzzers (names as in fuzz/CMakeLists.txt).
#   --no-build  use the fuzzers already in build-fuzz/.
# Exit status: 0 nothing found, 1 a finding, 2 bad usage or a failed build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

seconds=10 out="" jobs=1 only="" build=1
while (($#)); do
  case "$1" in
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --only) only=${2:?--only needs fuzzer names}; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *)
      if [[ "$1" =~ ^[0-9]+$ ]] && (($1 > 0)); then seconds=$1; shift
      else echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2; fi ;;
  esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --jobs takes a number >= 1" >&2; exit 2; }

mapfile -t all < <(sed -n 's/^colo_fuzzer(\([a-z_0-9]*\).*/\1/p' fuzz/CMakeLists.txt)
fuzzers=("${all[@]}")
if [ -n "$only" ]; then
  IFS=, read -r -a fuzzers <<<"$only"
  for f in "${fuzzers[@]}"; do
    [[ " ${all[*]} " == *" $f "* ]] || { echo "fuzz.sh: no fuzzer '$f' (have: ${all[*]})" >&2; exit 2; }
  done
fi

if ((build)); then
  if ! command -v clang++-14 >/dev/null; then
    echo "fuzz.sh: clang++-14 not found; install clang-14 and libclang-rt-14-dev (scripts/setup.sh does)" >&2
    exit 2
  fi
  # -O1 and line tables only: quicker to build, asserts kept, stacks still
  # name file:line.
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Fuzz \
    -DCMAKE_C_FLAGS_FUZZ="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_FUZZ="-O1 -gline-tables-only" \
    -DCOLO_FUZZ=ON -DCOLO_BUILD_TESTS=OFF -DCOLO_BUILD_BENCH=OFF -DCOLO_CUDA=OFF >/dev/null ||
    { echo "fuzz.sh: cmake configure failed" >&2; exit 2; }
  targets=()
  for f in "${fuzzers[@]}"; do targets+=("${f}_fuzzer"); done
  cmake --build build-fuzz --target "${targets[@]}" || { echo "fuzz.sh: build failed" >&2; exit 2; }
fi

keep=0
if [ -n "$out" ]; then
  mkdir -p "$out"; work=$(cd "$out" && pwd); keep=1
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/colo-fuzz.XXXXXX")
fi
mkdir -p "$work/tmp"

# The seed corpus of fuzzer $1 into folder $2, from fuzz/seeds.txt.
seed() {
  local name=$1 dir=$2 fuzzer prefix globs n=0 f
  mkdir -p "$dir"
  if [ "$name" = colod_protocol ]; then
    "build-fuzz/fuzz/${name}_fuzzer" --write-seeds="$dir" >/dev/null 2>&1
    return
  fi
  while read -r fuzzer prefix globs; do
    [[ -z "$fuzzer" || "$fuzzer" == \#* || "$fuzzer" != "$name" ]] && continue
    for f in $globs; do
      [ -f "$f" ] || { echo "fuzz.sh: seed $f of $name is missing"; return 1; }
      n=$((n + 1))
      if [ "$prefix" = - ]; then cat "$f"; else printf '%b' "$(sed 's/../\\x&/g' <<<"$prefix")"; cat "$f"; fi \
        >"$dir/seed-$n-$(basename "$f")"
    done
  done <fuzz/seeds.txt
}

# Runs fuzzer $1; its log in $work/logs/$1.log, findings in $work/findings/$1/.
run() {
  local name=$1 corpus=$work/corpus/$1 found=$work/findings/$1
  mkdir -p "$found" "$work/logs"
  if [ ! -d "$corpus" ] || [ -z "$(ls -A "$corpus")" ]; then
    seed "$name" "$corpus" >"$work/logs/$name.log" 2>&1 || { echo 2 >"$work/logs/$name.rc"; return; }
  fi
  local rc=0 symbolizer=${ASAN_SYMBOLIZER_PATH:-}
  [ -z "$symbolizer" ] && [ -x /usr/bin/llvm-symbolizer-14 ] && symbolizer=/usr/bin/llvm-symbolizer-14
  # -timeout: one input running 10 s is a hang. The outer timeout catches a
  # fuzzer stuck outside any input (its start-up, its exit).
  TMPDIR=$work/tmp ASAN_SYMBOLIZER_PATH=$symbolizer ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    timeout -k 10 $((seconds * 2 + 120)) "build-fuzz/fuzz/${name}_fuzzer" \
    -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$found/" "$corpus" >"$work/logs/$name.log" 2>&1 || rc=$?
  echo "$rc" >"$work/logs/$name.rc"
}

echo "fuzz.sh: ${#fuzzers[@]} fuzzers, ${seconds} s each, $jobs at a time; work folder $work"
running=0
for f in "${fuzzers[@]}"; do
  if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
  run "$f" &
  running=$((running + 1))
done
wait

status=0
printf '%-16s %10s %9s %7s %7s %7s  %s\n' fuzzer executions exec/s cov ft corpus result
for f in "${fuzzers[@]}"; do
  log=$work/logs/$f.log rc=$(cat "$work/logs/$f.rc" 2>/dev/null || echo 2)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
  mapfile -t saved < <(find "$work/findings/$f" -type f 2>/dev/null)
  result=ok
  if [ "$rc" != 0 ] || ((${#saved[@]})); then
    status=1
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then result="stuck (killed after $((seconds * 2 + 120)) s)"
    else result="FINDING (exit $rc)"; fi
  fi
  printf '%-16s %10s %9s %7s %7s %7s  %s\n' "$f" "${execs:--}" "${rate:--}" "${cov:--}" "${ft:--}" "${corp:--}" "$result"
done
if ((status)); then
  keep=1
  for f in "${fuzzers[@]}"; do
    rc=$(cat "$work/logs/$f.rc" 2>/dev/null || echo 2)
    mapfile -t saved < <(find "$work/findings/$f" -type f 2>/dev/null)
    [ "$rc" = 0 ] && ((${#saved[@]} == 0)) && continue
    echo
    echo "== $f: exit $rc; log $work/logs/$f.log"
    for s in "${saved[@]}"; do
      echo "   input saved as $s (rerun: build-fuzz/fuzz/${f}_fuzzer $s)"
    done
    grep -m1 -A30 -E '^==[0-9]+==ERROR|^SUMMARY|runtime error|^colo fuzz:|ERROR: libFuzzer' "$work/logs/$f.log" | head -40 || tail -20 "$work/logs/$f.log"
  done
fi
if ((keep)); then echo "fuzz.sh: corpora, findings and logs in $work"; else rm -rf "$work"; fi
exit "$status"
