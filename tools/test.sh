#!/usr/bin/env bash
# Runs every test: sets up dependencies, builds, then GoogleTest (via ctest) and pytest.
# Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bash tools/build.sh
BUILD=${TANDEM_BUILD_DIR:-build}
status=0
echo "== Lint (ruff, clang-format)"
bash tools/lint.sh || status=1
echo "== C++ tests (ctest)"
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)" || status=1
echo "== Python tests (pytest)"
TANDEM_BUILD_DIR="$BUILD" PYTHONPATH="$(pwd)/python" .venv/bin/python -m pytest -q -p no:cacheprovider \
  tests/python "$@" || status=1
echo "== Fuzz (model parser, safetensors, IDX; libFuzzer + ASan/UBSan, ${TANDEM_FUZZ_SECONDS:-60} s in all)"
TANDEM_BUILD_DIR="$BUILD" bash tools/fuzz.sh --seconds "${TANDEM_FUZZ_SECONDS:-60}" \
  >"$BUILD/fuzz.log" 2>&1 || { tail -n 60 "$BUILD/fuzz.log"; status=1; }
grep -E "^Done [0-9]+ runs" "$BUILD/fuzz.log" || true
echo "== Benchmarks (benchmarks/run_all --quick: tandem rows only, no peers)"
TANDEM_BUILD_DIR="$BUILD" benchmarks/run_all --quick >"$BUILD/run_all_quick.log" 2>&1 \
  || { tail -n 40 "$BUILD/run_all_quick.log"; status=1; }
exit $status
