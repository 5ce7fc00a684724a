#!/usr/bin/env bash
# Fails when a tracked C++ or CUDA source is not formatted as .clang-format
# says (Debian 12's clang-format, which scripts/setup.sh installs). Prints each
# unformatted file and the command that fixes them all.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cc' '*.h' '*.cu' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
# One clang-format for all: each unformatted file gets "file:line:col:
# error: code should be clang-formatted" lines.
report=$(clang-format --dry-run --Werror "${files[@]}" 2>&1 || true)
mapfile -t bad < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error: code should be clang-formatted' <<<"$report" |
  cut -d: -f1 | sort -u)
if ((${#bad[@]})); then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "${#bad[@]} of ${#files[@]} files not formatted; fix with:"
  echo "  git ls-files '*.cc' '*.h' '*.cu' | xargs clang-format -i"
  exit 1
fi
if grep -q 'error' <<<"$report"; then
  echo "clang-format failed:" >&2
  echo "$report" | head -20 >&2
  exit 1
fi
echo "format: ${#files[@]} files formatted as .clang-format says"
