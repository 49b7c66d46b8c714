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
if [ "${TANDEM_SKIP_SANITIZE:-0}" != 1 ]; then
  echo "== C++ tests under AddressSanitizer + UBSan (build in ${BUILD}-asan)"
  if TANDEM_BUILD_DIR="${BUILD}-asan" bash tools/build.sh -DTANDEM_SANITIZE=ON \
      -DTANDEM_BUILD_PYTHON=OFF >"$BUILD/asan_build.log" 2>&1; then
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ctest --test-dir "${BUILD}-asan" --output-on-failure -j "$(nproc)" >"$BUILD/asan_ctest.log" 2>&1 \
      || { tail -n 60 "$BUILD/asan_ctest.log"; status=1; }
    grep -E "tests passed" "$BUILD/asan_ctest.log" || true
  else
    tail -n 40 "$BUILD/asan_build.log"
    status=1
  fi
fi
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
