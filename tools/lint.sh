#!/usr/bin/env bash
# Lint gate run by tools/test.sh: ruff (pyproject.toml's rule set) over the Python sources and
# clang-format (.clang-format) over every tracked C/C++ file. `tools/lint.sh --fix` rewrites.
set -euo pipefail
cd "$(dirname "$0")/.."
FIX=0
[ "${1:-}" = "--fix" ] && FIX=1
status=0
if ((FIX)); then
  .venv/bin/ruff check --fix python tests tools benchmarks examples || status=1
else
  .venv/bin/ruff check --output-format concise python tests tools benchmarks examples || status=1
fi
CF=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$CF" ]; then
  echo "lint: clang-format not found (tools/setup.sh installs clang-format-14)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.c' | grep -v '^python/tandem/_generated/')
if ((FIX)); then
  "$CF" -i "${files[@]}"
else
  bad=()
  for f in "${files[@]}"; do
    "$CF" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if ((${#bad[@]})); then
    echo "lint: not clang-formatted (run tools/lint.sh --fix): ${bad[*]}"
    status=1
  fi
fi
exit $status
