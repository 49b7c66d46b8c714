#!/usr/bin/env bash
# Configures and builds the C++ library, its tests and the Python extension into build/
# (or $TANDEM_BUILD_DIR). Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${TANDEM_BUILD_DIR:-build}
PY=$(pwd)/.venv/bin/python
export PATH="$(pwd)/.venv/bin:$PATH"
if [ ! -f "$BUILD/build.ninja" ] || [ $# -gt 0 ]; then
  cmake -S . -B "$BUILD" -G Ninja -DPython_EXECUTABLE="$PY" "$@" >/dev/null
fi
cmake --build "$BUILD" -j "$(nproc)"
