#!/usr/bin/env bash
# The include check (scripts/check_module_includes.py) on a copy of the real
# tree with one deliberately wrong include in it:
#  1. the tree as it is passes;
#  2. the interposer including a daemon header (src/shim -> src/runtime,
#     which colo_preload does not link) fails, naming the file and line;
#  3. colod's main including the wire format fails too: colod links
#     colo_runtime, which links colo_ipc, but a module reached only through
#     another's dependencies is not declared.
# Usage: check_module_includes_test.sh SOURCE_DIR MODULES_TXT
set -euo pipefail
src=$1 table=$2
check="python3 $src/scripts/check_module_includes.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/src" "$src/tools" "$work/"

fail() { echo "FAIL: $*"; exit 1; }

out=$($check "$table" "$work") || fail "the unchanged tree did not pass: $out"
echo "ok: unchanged tree passes ($out)"

expect_caught() {  # FILE WHAT INCLUDE
  local file=$1 what=$2 include=$3
  cp "$work/$file" "$work/$file.orig"
  printf '#include "%s"\n' "$include" >>"$work/$file"
  local line rc=0
  line=$(wc -l <"$work/$file")
  out=$($check "$table" "$work") || rc=$?
  mv "$work/$file.orig" "$work/$file"
  [ "$rc" -eq 1 ] || fail "$file including $include: exit $rc, expected 1: $out"
  grep -q "^$file:$line: includes a header of module '$what'" <<<"$out" ||
    fail "$file including $include: no line naming $file:$line and module $what in: $out"
  echo "ok: $file:$line including $include is caught"
}
expect_caught src/shim/gate_client.cc runtime runtime/daemon.h
expect_caught tools/colod_main.cc ipc ipc/wire.h
expect_caught src/sim/sim_gpu.h sched sched/policy.h
