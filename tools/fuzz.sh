#!/usr/bin/env bash
# Fuzzes tandem's file readers with libFuzzer under ASan + UBSan (clang from Debian, installed
# by tools/setup.sh): the model file parser (seeded with small exported models), the
# safetensors checkpoint loader and the IDX (MNIST) reader (seeded by
# tests/fuzz/make_format_seeds.py); fails on any crash, leak, out-of-bounds access, undefined
# behaviour or uncaught exception.
#   tools/fuzz.sh [--seconds N] [--full] [--only model|safetensors|idx]
# --seconds is the total budget: half to the model parser, a quarter to each of the others.
# Default: the parsers are instrumented and linked against the gcc build's libtandem_runtime
# (tools/build.sh first); --full instruments the whole runtime library too (a long build; the
# model parser only). Crashing inputs are saved under build-fuzz/artifacts/;
# tests/fuzz/regressions/ (model files) and tests/fuzz/regressions/<target>/ hold past ones,
# replayed first.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=60
FULL=OFF
ONLY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_TO_RUN=$2; shift 2 ;;
    --full) FULL=ON; shift ;;
    --only) ONLY=$2; shift 2 ;;
    *) echo "usage: tools/fuzz.sh [--seconds N] [--full] [--only model|safetensors|idx]" >&2
       exit 2 ;;
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
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
PY_ENV=(env TANDEM_BUILD_DIR="$BUILD" PYTHONPATH="$(pwd)/python")
mkdir -p "$FUZZ/artifacts"
# run_target NAME BINARY SECONDS DICT SEEDS...: replay the regressions, then fuzz for SECONDS.
run_target() {
  local name=$1 bin=$2 secs=$3 dict=$4
  shift 4
  echo "== fuzz $name (${secs} s)"
  local regress=tests/fuzz/regressions/$name
  [ "$name" = model ] && regress=tests/fuzz/regressions
  if compgen -G "$regress/*" >/dev/null; then
    local files=()
    for f in "$regress"/*; do [ -f "$f" ] && files+=("$f"); done
    [ ${#files[@]} -gt 0 ] && "$bin" "${files[@]}"
  fi
  mkdir -p "$FUZZ/corpus-$name"
  [ "$name" = model ] && mkdir -p "$FUZZ/corpus" && set -- "$FUZZ/corpus" "$@"
  [ "$name" != model ] && set -- "$FUZZ/corpus-$name" "$@"
  [ -n "$dict" ] && set -- "$@" -dict="$dict"
  "$bin" "$@" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=4096 \
    -timeout=20 -artifact_prefix="$FUZZ/artifacts/$name-" -print_final_stats=1 2>&1 | tail -n 25
}
MODEL_SECS=$(( SECONDS_TO_RUN / 2 ))
[ "$MODEL_SECS" -lt 1 ] && MODEL_SECS=1
OTHER_SECS=$(( (SECONDS_TO_RUN - MODEL_SECS) / 2 ))
[ "$OTHER_SECS" -lt 1 ] && OTHER_SECS=1
[ -n "$ONLY" ] && { MODEL_SECS=$SECONDS_TO_RUN; OTHER_SECS=$SECONDS_TO_RUN; }
if [ -z "$ONLY" ] || [ "$ONLY" = model ]; then
  "${PY_ENV[@]}" .venv/bin/python tests/fuzz/make_seeds.py "$FUZZ/seeds"
  run_target model "$FUZZ/fuzz_model_parser" "$MODEL_SECS" tests/fuzz/model.dict "$FUZZ/seeds"
fi
if [ "$FULL" = OFF ]; then
  if [ -z "$ONLY" ] || [ "$ONLY" = safetensors ]; then
    "${PY_ENV[@]}" .venv/bin/python tests/fuzz/make_format_seeds.py safetensors \
      "$FUZZ/seeds-safetensors"
    run_target safetensors "$FUZZ/fuzz_safetensors" "$OTHER_SECS" tests/fuzz/safetensors.dict \
      "$FUZZ/seeds-safetensors"
  fi
  if [ -z "$ONLY" ] || [ "$ONLY" = idx ]; then
    "${PY_ENV[@]}" .venv/bin/python tests/fuzz/make_format_seeds.py idx "$FUZZ/seeds-idx"
    run_target idx "$FUZZ/fuzz_idx" "$OTHER_SECS" "" "$FUZZ/seeds-idx"
  fi
fi
