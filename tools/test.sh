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
echo "== C++ tests with the AVX-512 forms off (TANDEM_ISA=avx2), and under valgrind memcheck"
# The portable build picks AVX-512 kernels at run time where the CPU has them; these runs
# hold it to the AVX2 baseline a CPU without AVX-512 gets. valgrind's CPU has no AVX-512,
# so memcheck runs the same forms (and could not load a -march=native build at all).
TANDEM_ISA=avx2 ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)" >"$BUILD/avx2_ctest.log" 2>&1 \
  || { tail -n 60 "$BUILD/avx2_ctest.log"; status=1; }
grep -E "tests passed" "$BUILD/avx2_ctest.log" || true
if command -v valgrind >/dev/null && ! grep -q "^TANDEM_ARCH:STRING=native" "$BUILD/CMakeCache.txt"; then
  valgrind --quiet --error-exitcode=9 \
    "$BUILD/tests/cpp/tandem_tests" --gtest_brief=1 \
    --gtest_filter='Elementwise.*:Reduce.*:Views.*:Tensor.*:TensorViews.*:Pool.*:Graph.*:Autograd.*:FusedRnn.*:SafetensorsTest.*:Json.*:ModelFormat.*:CpuDispatch.*' \
    >"$BUILD/valgrind.log" 2>&1 || { tail -n 60 "$BUILD/valgrind.log"; status=1; }
  tail -n 3 "$BUILD/valgrind.log"
fi
echo "== Python tests (pytest)"
TANDEM_BUILD_DIR="$BUILD" PYTHONPATH="$(pwd)/python" .venv/bin/python -m pytest -q -p no:cacheprovider \
  tests/python "$@" || status=1
echo "== Python tests with the AVX-512 forms off (TANDEM_ISA=avx2): kernels, autograd, jit, nn"
T=tests/python
TANDEM_ISA=avx2 TANDEM_BUILD_DIR="$BUILD" PYTHONPATH="$(pwd)/python" .venv/bin/python -m pytest -q \
  -p no:cacheprovider $T/test_elementwise.py $T/test_differential.py $T/test_autograd_*.py \
  $T/test_gradcheck.py $T/test_jit*.py $T/test_fused_codegen.py $T/test_fusion_property.py \
  $T/test_nn_*.py $T/test_norm_ops.py $T/test_reductions.py $T/test_rnn_fused.py \
  $T/test_strided_elementwise.py $T/test_half_conversions.py $T/test_bf16_kernels.py \
  $T/test_amp.py $T/test_linalg.py $T/test_promotion.py $T/test_fuzz_*.py \
  $T/test_cpu_dispatch.py $T/test_smoke.py >"$BUILD/avx2_pytest.log" 2>&1 \
  || { tail -n 40 "$BUILD/avx2_pytest.log"; status=1; }
tail -n 1 "$BUILD/avx2_pytest.log"
echo "== Fuzz (model parser, safetensors, IDX; libFuzzer + ASan/UBSan, ${TANDEM_FUZZ_SECONDS:-60} s in all)"
TANDEM_BUILD_DIR="$BUILD" bash tools/fuzz.sh --seconds "${TANDEM_FUZZ_SECONDS:-60}" \
  >"$BUILD/fuzz.log" 2>&1 || { tail -n 60 "$BUILD/fuzz.log"; status=1; }
grep -E "^Done [0-9]+ runs" "$BUILD/fuzz.log" || true
echo "== Benchmarks (benchmarks/run_all --quick: tandem rows only, no peers)"
TANDEM_BUILD_DIR="$BUILD" benchmarks/run_all --quick >"$BUILD/run_all_quick.log" 2>&1 \
  || { tail -n 40 "$BUILD/run_all_quick.log"; status=1; }
exit $status
