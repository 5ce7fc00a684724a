#!/usr/bin/env bash
# The GPU check, one command with nothing to type, within 9 minutes on an
# H100 (docs/gpu-check.md):
#   build         what it runs, into build-gpu (Release). A build-gpu made
#                 on another machine and carried here is used as it is, with
#                 the Debian libraries it carries (build-gpu/debian-libs)
#                 where this machine lacks them; one made on this machine is
#                 brought up to date; else it is configured and built. Where
#                 CMake cannot configure (Debian packages missing),
#                 forms_on_gpu, gpu_service and gpu_trainer are compiled
#                 directly and the colod rows are left out.
#   forms         tests/cuda_programs/forms_on_gpu: every kernel case of
#                 tests/ptx/kernel_cases.h in each form against its native
#                 run, bit for bit, retreats forced every RETREAT_EVERY_US
#                 with resumption, a deadline per case; then the forms'
#                 costs (`cost` lines).
#   corpus        bench/corpus_gate.sh: every program of the compatibility
#                 corpus natively and under colod in gate mode, outputs
#                 compared.
#   interference  bench/real_interference.sh: the service alone, and beside
#                 a trainer of 50 us kernels, of 2 ms kernels of 40 waves of
#                 50 us blocks, and of one-wave 2 ms kernels: native, MPS,
#                 colod priority, colod priority with `mps: managed`.
# Prints each phase's elapsed time, then one summary (phases, the forms'
# result and costs, the interference table); writes it and each phase's
# log under $OUT when set. Without a GPU it builds, says what is missing
# and exits 1.
#
# Usage: scripts/gpu_check.sh
# Knobs (environment): BUILD=build-gpu JOBS=<nproc> RETREAT_EVERY_US=20
#   FORMS_ARGS (more forms_on_gpu options, e.g. "--long-blocks 0")
#   BUDGET_S=540 (the whole run; SECONDS_PER_RUN follows from what is left,
#   2..6, unless set)
# Exit: 0 when every phase ran and passed; 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
BUILD=${BUILD:-build-gpu}
JOBS=${JOBS:-$(nproc)}
RETREAT_EVERY_US=${RETREAT_EVERY_US:-20}
FORMS_ARGS=${FORMS_ARGS:-}
BUDGET_S=${BUDGET_S:-540}
START=$(date +%s)
LOGS=$(mktemp -d /tmp/colo-gpu-check.XXXXXX)
trap 'rm -rf "$LOGS"' EXIT
PHASES=$LOGS/phases
: >"$PHASES"
RC=0

say() { echo "gpu_check: $*"; }
elapsed() { echo $(($(date +%s) - START)); }
# phase_done NAME SECONDS RESULT
phase_done() {
  printf '%-13s %5s s  %s\n' "$1" "$2" "$3" >>"$PHASES"
  say "phase $1: $2 s: $3"
}

# Where there is no GPU, everything below still builds; forms_on_gpu then
# says what is missing.
if command -v nvidia-smi >/dev/null 2>&1; then
  GPU_NAME=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
  say "GPU: ${GPU_NAME:-nvidia-smi found, but it names no GPU}"
else
  GPU_NAME=""
  say "no nvidia-smi here: probably no GPU; building what a GPU machine needs, then stopping"
fi

# -- build -----------------------------------------------------------------
TARGETS=(colod colo colo_preload forms_on_gpu ptx_kernels
  tests/cuda_programs/gpu_service tests/cuda_programs/gpu_trainer)
NEEDED=(colod colo libcolo_preload.so tests/cuda_programs/forms_on_gpu
  tests/cuda_programs/gpu_service tests/cuda_programs/gpu_trainer
  tests/ptx/kernels/cuda_programs_gpu_trainer.ptx)
HOST_ID="$(hostname) $ROOT"
abs() { case $1 in /*) echo "$1" ;; *) echo "$ROOT/$1" ;; esac; }
missing_files() {
  local f out=""
  for f in "${NEEDED[@]}"; do [ -e "$BUILD/$f" ] || out="$out $f"; done
  echo "$out"
}
# The shared libraries the built programs load that are not the C and C++
# runtimes (yaml-cpp, fmt, zstd, lz4 from Debian), copied beside them for a
# machine that lacks them.
bundle_libs() {
  local dir=$BUILD/debian-libs f lib
  mkdir -p "$dir"
  for f in colod colo libcolo_preload.so tests/cuda_programs/forms_on_gpu; do
    [ -e "$BUILD/$f" ] || continue
    ldd "$BUILD/$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
      while read -r lib; do
        case $(basename "$lib") in
          libc.so* | libm.so* | libstdc++.so* | libgcc_s.so* | ld-linux* | libdl.so* | \
            libpthread.so* | librt.so* | libcuda.so* | libcudart.so*) ;;
          *) cp -L "$lib" "$dir/" ;;
        esac
      done
  done
}
# forms_on_gpu, gpu_service, gpu_trainer and the PTX, without CMake (for a
# machine whose CMake configure fails for lack of Debian packages).
build_direct() {
  local nvcc cu stem out
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  [ -x "$nvcc" ] || { say "no nvcc: cannot build the CUDA programs"; return 1; }
  mkdir -p "$BUILD/tests/cuda_programs" "$BUILD/tests/ptx/kernels"
  for p in gpu_service gpu_trainer; do
    "$nvcc" -cudart shared -O2 -std=c++17 -o "$BUILD/tests/cuda_programs/$p" \
      "tests/cuda_programs/$p.cu" || return 1
  done
  # shellcheck disable=SC2016  # the inner shell expands $0, $1, $2
  for cu in tests/ptx/kernels/*.cu tests/cuda_programs/*.cu; do
    stem=$(basename "$cu" .cu)
    case $cu in tests/cuda_programs/*) stem=cuda_programs_$stem ;; esac
    out=$BUILD/tests/ptx/kernels/$stem.ptx
    [ "$out" -nt "$cu" ] || echo "$cu $out"
  done | xargs -r -n 2 -P "$JOBS" sh -c '"$0" --ptx -arch=sm_80 -O2 -std=c++17 -o "$2" "$1"' "$nvcc" ||
    return 1
  g++ -O2 -std=c++20 -Isrc -Iinclude -Itests/ptx -isystem "$(dirname "$nvcc")/../include" \
    -DCOLO_PTX_KERNEL_DIR="\"$(abs "$BUILD")/tests/ptx/kernels\"" \
    src/ptx/*.cc src/core/status.cc tests/ptx/kernel_cases.cc \
    tests/cuda_programs/forms_on_gpu.cc tests/cuda_programs/forms_on_gpu_driver.cc \
    tests/cuda_programs/forms_on_gpu_costs.cc -ldl -o "$BUILD/tests/cuda_programs/forms_on_gpu"
}
build() {
  local host
  if [ -d "$BUILD" ]; then
    host=$(cat "$BUILD/gpu_check.host" 2>/dev/null)
    if [ "$host" != "$HOST_ID" ]; then
      if [ -z "$(missing_files)" ]; then
        BUILD_NOTE="carried $BUILD (built on ${host:-another machine}), used as it is"
        return 0
      fi
      say "$BUILD (from ${host:-elsewhere}) lacks$(missing_files); building $BUILD-here instead"
      BUILD=$BUILD-here
    fi
  fi
  mkdir -p "$BUILD"
  echo "$HOST_ID" >"$BUILD/gpu_check.host"
  if [ ! -f "$BUILD/build.ninja" ]; then
    if ! cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOLO_BUILD_BENCH=OFF \
      -DCOLO_CUDA=ON >"$LOGS/configure.log" 2>&1; then
      say "CMake could not configure $BUILD (missing here:" \
        "$(grep -ho 'Could NOT find [A-Za-z0-9_-]*\|Could not find a package configuration file provided by "[^"]*"' \
          "$LOGS/configure.log" | sed 's/.*by //; s/Could NOT find //' | tr '\n' ' ')):" \
        "compiling forms_on_gpu, gpu_service and gpu_trainer directly; no colod rows"
      tail -5 "$LOGS/configure.log"
      build_direct >"$LOGS/build.log" 2>&1 || { tail -20 "$LOGS/build.log"; return 1; }
      BUILD_NOTE="direct build (no CMake): colod, colo and the interposer missing"
      NO_COLOD=1
      return 0
    fi
  fi
  # -k 0: what does not depend on a failed step is still built.
  if ! nice ninja -C "$BUILD" -j"$JOBS" -k 0 "${TARGETS[@]}" >"$LOGS/build.log" 2>&1; then
    grep -m 20 -A 8 '^FAILED' "$LOGS/build.log"
    bundle_libs
    return 1
  fi
  bundle_libs
  # The corpus needs nvcc; without it the target does not exist and the
  # corpus phase says so.
  nice ninja -C "$BUILD" -j"$JOBS" corpus_programs >>"$LOGS/build.log" 2>&1 ||
    say "the corpus was not built (no nvcc in $BUILD's configuration?)"
  if grep -q 'no work to do' "$LOGS/build.log"; then
    BUILD_NOTE="$BUILD, built here, up to date"
  else
    BUILD_NOTE="$BUILD built here ($(grep -c '^\[[0-9]*/[0-9]*\] [A-Z]' "$LOGS/build.log") steps)"
  fi
}
BUILD_NOTE=""
NO_COLOD=0
T0=$(elapsed)
if build; then
  phase_done build $(($(elapsed) - T0)) "$BUILD_NOTE"
else
  phase_done build $(($(elapsed) - T0)) "FAILED (see above)"
  RC=1
fi
MISSING=$(missing_files)
[ "$NO_COLOD" = 1 ] && MISSING=$(echo "$MISSING" | tr ' ' '\n' | grep -v '^colod$\|^colo$\|^libcolo_preload.so$' | tr '\n' ' ')
if [ -n "${MISSING// /}" ]; then
  say "missing after the build: $MISSING"
  RC=1
fi
# Debian's libraries carried with the build, for those this machine lacks
# (and only those: a folder of links to them on LD_LIBRARY_PATH).
LIBS=$LOGS/libs
mkdir -p "$LIBS"
for f in colod colo libcolo_preload.so tests/cuda_programs/forms_on_gpu; do
  [ -e "$BUILD/$f" ] || continue
  for lib in $(ldd "$BUILD/$f" 2>/dev/null | awk '$3 == "not" { print $1 }'); do
    if [ -e "$BUILD/debian-libs/$lib" ]; then
      ln -sf "$(abs "$BUILD")/debian-libs/$lib" "$LIBS/$lib"
    else
      say "$f needs $lib, which neither this machine nor $BUILD/debian-libs has"
    fi
  done
done
if [ -n "$(ls -A "$LIBS")" ]; then
  export LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  say "from $BUILD/debian-libs: $(find "$LIBS" -mindepth 1 -printf '%f ')"
fi

# -- forms -----------------------------------------------------------------
FORMS_LOG=$LOGS/forms_on_gpu.log
: >"$FORMS_LOG"
GPU_OK=0
T0=$(elapsed)
if [ -x "$BUILD/tests/cuda_programs/forms_on_gpu" ]; then
  LEFT=$((BUDGET_S - $(elapsed)))
  LIMIT=$((LEFT > 400 ? 240 : (LEFT > 160 ? LEFT - 120 : 40)))
  # shellcheck disable=SC2086  # FORMS_ARGS: words on purpose
  timeout -k 5 "$LIMIT" "$BUILD/tests/cuda_programs/forms_on_gpu" "$BUILD/tests/ptx/kernels" \
    --retreat-every-us "$RETREAT_EVERY_US" $FORMS_ARGS 2>&1 | tee "$FORMS_LOG"
  FORMS_RC=${PIPESTATUS[0]}
  case $FORMS_RC in
    0) GPU_OK=1; RESULT="ok: $(grep -m1 '^forms_on_gpu: [0-9]* cases' "$FORMS_LOG" | sed 's/^forms_on_gpu: //')" ;;
    77) RESULT="no GPU: $(grep -m1 'needs a GPU' "$FORMS_LOG" | sed 's/^forms_on_gpu: //')" ;;
    124 | 137) GPU_OK=1; RESULT="FAILED: no end within $LIMIT s" ;;
    *) GPU_OK=1; RESULT="FAILED (exit $FORMS_RC): $(grep -c '^  FAIL' "$FORMS_LOG") failures; $(grep -m1 '^forms_on_gpu: stopped\|^forms_on_gpu: [0-9]* cases' "$FORMS_LOG" | sed 's/^forms_on_gpu: //')" ;;
  esac
  [ "$FORMS_RC" = 0 ] || RC=1
else
  RESULT="not run: forms_on_gpu was not built"
  RC=1
fi
phase_done forms $(($(elapsed) - T0)) "$RESULT"

# -- corpus ----------------------------------------------------------------
CORPUS_LOG=$LOGS/corpus_gate.log
: >"$CORPUS_LOG"
T0=$(elapsed)
if [ "$GPU_OK" != 1 ]; then
  RESULT="not run: no GPU seen by forms_on_gpu"
elif [ "$NO_COLOD" = 1 ] || [ ! -d "$BUILD/tests/corpus" ]; then
  RESULT="not run: colod or the corpus (nvcc) was not built"
  RC=1
else
  LEFT=$((BUDGET_S - $(elapsed)))
  LIMIT=$((LEFT > 300 ? 120 : (LEFT > 150 ? LEFT - 150 : 20)))
  PER_PROGRAM_S=20 timeout -k 5 "$LIMIT" bench/corpus_gate.sh "$BUILD" 2>&1 | tee "$CORPUS_LOG"
  CRC=${PIPESTATUS[0]}
  case $CRC in
    0) RESULT="ok: $(grep -m1 '^corpus_gate: ' "$CORPUS_LOG" | sed 's/^corpus_gate: //')" ;;
    124 | 137) RESULT="FAILED: no end within $LIMIT s ($(grep -c '^[a-z]' "$CORPUS_LOG") lines)"; RC=1 ;;
    *) RESULT="FAILED (exit $CRC): $(grep -m1 '^corpus_gate: ' "$CORPUS_LOG" | sed 's/^corpus_gate: //')"; RC=1 ;;
  esac
fi
phase_done corpus $(($(elapsed) - T0)) "$RESULT"

# -- interference ----------------------------------------------------------
INTERFERENCE_LOG=$LOGS/real_interference.log
: >"$INTERFERENCE_LOG"
T0=$(elapsed)
if [ "$GPU_OK" != 1 ]; then
  RESULT="not run: no GPU seen by forms_on_gpu"
elif [ ! -x "$BUILD/tests/cuda_programs/gpu_service" ] || [ ! -x "$BUILD/tests/cuda_programs/gpu_trainer" ]; then
  RESULT="not run: gpu_service or gpu_trainer was not built"
  RC=1
else
  LEFT=$((BUDGET_S - $(elapsed)))
  # About 17 runs of SECONDS_PER_RUN, each with some 3 s of starting and
  # stopping, and 30 s of calibration.
  SPR=${SECONDS_PER_RUN:-$(((LEFT - 40) / 17 - 3))}
  [ "$SPR" -gt 6 ] && SPR=6
  [ "$SPR" -lt 2 ] && SPR=2
  SHARINGS="native mps colod colod-mps"
  [ "$NO_COLOD" = 1 ] && SHARINGS="native mps"
  say "interference: ${SPR} s a run, $((LEFT - 10)) s at most; sharings: $SHARINGS"
  SECONDS_PER_RUN=$SPR BE_KERNEL_US="50 2000x40 2000" POLICIES=priority SHARINGS=$SHARINGS \
    timeout -k 10 $((LEFT > 70 ? LEFT - 10 : 60)) bench/real_interference.sh "$BUILD" 2>&1 |
    tee "$INTERFERENCE_LOG"
  IRC=${PIPESTATUS[0]}
  if [ "$IRC" = 0 ]; then
    RESULT="ok: $SPR s a run"
  else
    RESULT="FAILED (exit $IRC): $(grep -m1 '^real_interference:' "$INTERFERENCE_LOG")"
    RC=1
  fi
fi
phase_done interference $(($(elapsed) - T0)) "$RESULT"

# -- summary ---------------------------------------------------------------
SUMMARY=$LOGS/gpu_check.txt
{
  echo "== gpu_check: ${GPU_NAME:-no GPU}, $(date -u '+%Y-%m-%d %H:%M UTC'), $(elapsed) s in all =="
  printf '%-13s %7s  %s\n' phase time result
  cat "$PHASES"
  if grep -q '^cost ' "$FORMS_LOG"; then
    echo
    echo "kernel forms' costs on the GPU (forms_on_gpu):"
    grep '^cost ' "$FORMS_LOG"
  fi
  if grep -q '^  FAIL' "$FORMS_LOG"; then
    echo
    echo "forms_on_gpu failures:"
    grep '^  FAIL' "$FORMS_LOG" | head -20
  fi
  if grep -q 'DIFFERENT\|native did not run' "$CORPUS_LOG"; then
    echo
    echo "corpus programs not the same natively and under colod (bench/corpus_gate.sh):"
    grep 'DIFFERENT\|native did not run' "$CORPUS_LOG" | head -20
  fi
  if grep -q '^sharing ' "$INTERFERENCE_LOG"; then
    echo
    echo "service beside trainers (bench/real_interference.sh; be_k_us: trainer kernel, /Nw = N waves):"
    sed -n '/^sharing /,$p' "$INTERFERENCE_LOG"
  fi
} >"$SUMMARY"
echo
cat "$SUMMARY"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$SUMMARY" "$FORMS_LOG" "$CORPUS_LOG" "$INTERFERENCE_LOG" "$OUT/" 2>/dev/null
  for f in build.log configure.log; do [ -s "$LOGS/$f" ] && cp "$LOGS/$f" "$OUT/"; done
  say "summary and logs in $OUT"
fi
exit "$RC"
