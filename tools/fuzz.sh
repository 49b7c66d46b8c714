#!/usr/bin/env bash
# Fuzzes the model file parser with libFuzzer under ASan + UBSan (clang from Debian, installed
# by tools/setup.sh), seeded with small exported models; fails on any crash, leak,
# out-of-bounds access, undefined behaviour or uncaught exception.
#   tools/fuzz.sh [--seconds N] [--full]
# Default: the parser is instrumented and linked against the gcc build's libtandem_runtime
# (tools/build.sh first); --full instruments the whole runtime library too (a long build).
# Crashing inputs are saved under build-fuzz/artifacts/; tests/fuzz/regressions/ holds past
# ones, replayed first.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=60
FULL=OFF
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_TO_RUN=$2; shift 2 ;;
    --full) FULL=ON; shift ;;
    *) echo "usage: tools/fuzz.sh [--seconds N] [--full]" >&2; exit 2 ;;
  esac
done
BUILD=${TANDEM_BUILD_DIR:-build}
FUZZ=${TANDEM_FUZZ_DIR:-build-fuzz}
[ "$FULL" = ON ] && FUZZ=${FUZZ}-full
CLANG=$(command -v clang++-14 || command -v clang++ || true)
if [ -z "$CLANG" ]; then
  echo "fuzz: clang++ not found (tools/setup.sh installs clang-14 and libclang-rt-14-dev)" >&2
  exit 1
fi
export PATH="$(pwd)/.venv/bin:$PATH"
if [ ! -f "$FUZZ/build.ninja" ]; then
  cmake -S tests/fuzz -B "$FUZZ" -G Ninja -DCMAKE_CXX_COMPILER="$CLANG" -DFUZZ_FULL=$FULL \
    -DTANDEM_BUILD="$(pwd)/$BUILD" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
fi
cmake --build "$FUZZ" -j "$(nproc)"
CORPUS="$FUZZ/corpus"
mkdir -p "$CORPUS" "$FUZZ/artifacts"
TANDEM_BUILD_DIR="$BUILD" PYTHONPATH="$(pwd)/python" .venv/bin/python tests/fuzz/make_seeds.py \
  "$FUZZ/seeds"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if compgen -G "tests/fuzz/regressions/*" >/dev/null; then
  "$FUZZ/fuzz_model_parser" tests/fuzz/regressions/*
fi
"$FUZZ/fuzz_model_parser" "$CORPUS" "$FUZZ/seeds" -dict=tests/fuzz/model.dict \
  -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -rss_limit_mb=4096 -timeout=20 \
  -artifact_prefix="$FUZZ/artifacts/" -print_final_stats=1 2>&1 | tail -n 25
