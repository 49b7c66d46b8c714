#!/usr/bin/env bash
# Installs everything tandem needs on a fresh Debian machine: system packages via apt-get
# and Python packages into .venv. Idempotent: a second run only checks and returns.
#   tools/setup.sh            dependencies only
#   tools/setup.sh --install  also pip-installs tandem itself into .venv (a real wheel build)
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(build-essential cmake ninja-build pkg-config ccache libdnnl-dev libopenblas-dev
  libsleef-dev libxbyak-dev libgtest-dev zlib1g-dev dataset-fashion-mnist python3-venv
  clang-14 libclang-rt-14-dev libomp-14-dev  # clang + libFuzzer: tools/fuzz.sh
  clang-format-14  # tools/lint.sh
  valgrind  # tools/test.sh: memcheck over a C++ subset (runs the AVX2 forms)
  libopenmpi-dev openmpi-bin)  # tandem.mint.distributed (optional: built without MPI if absent)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
PIP_PACKAGES=(numpy pytest hypothesis nanobind scikit-build-core ninja cmake safetensors matplotlib mypy ruff)
if ! .venv/bin/python -c "import numpy, pytest, hypothesis, nanobind, scikit_build_core, matplotlib, mypy, ruff" 2>/dev/null; then
  echo "setup: installing Python packages into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q "${PIP_PACKAGES[@]}"
fi
# Test-only: the D2L book's cells use pandas (data preprocessing, Kaggle) and PIL; the
# notebook path of tandem.d2l's Animator is tested with IPython's display.
if ! .venv/bin/python -c "import pandas, PIL, IPython, matplotlib_inline" 2>/dev/null; then
  .venv/bin/python -m pip install -q pandas pillow ipython matplotlib-inline
fi

# Test-only: the notebooks in examples/notebooks are executed in a real Jupyter kernel; the
# zoo's progress bar is a tqdm bar where tqdm is installed.
if ! .venv/bin/python -c "import nbclient, nbformat, ipykernel, tqdm" 2>/dev/null; then
  echo "setup: installing nbclient, nbformat, ipykernel and tqdm into .venv (tests only)"
  .venv/bin/python -m pip install -q nbclient nbformat ipykernel tqdm
fi

# Test-only: ONNX export is checked with onnx.checker and run in onnxruntime (tandem itself
# needs neither).
if ! .venv/bin/python -c "import onnx, onnxruntime" 2>/dev/null; then
  echo "setup: installing onnx and onnxruntime into .venv (tests only)"
  .venv/bin/python -m pip install -q onnx onnxruntime
fi

# Test-only oracle: PyTorch 2.13 CPU (pinned, or pip pulls a CUDA build). tandem never imports it.
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  echo "setup: installing torch==2.13.0 (CPU) into .venv (tests only)"
  .venv/bin/python -m pip install -q torch==2.13.0 || echo "setup: torch unavailable; oracle tests skip"
fi

if [ "${1:-}" = "--install" ]; then
  echo "setup: building and installing tandem into .venv (pip install .)"
  export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
  .venv/bin/python -m pip install -q --no-build-isolation .
fi
echo "setup: ok"
