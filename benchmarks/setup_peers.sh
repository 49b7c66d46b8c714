#!/usr/bin/env bash
# Creates benchmarks/.peers-venv with the peer frameworks used only for side-by-side
# measurement (never tandem dependencies). Idempotent; safe to fail (benchmarks then report
# the peer as unavailable).
set -uo pipefail
cd "$(dirname "$0")"
V=.peers-venv
if [ ! -x $V/bin/python ]; then python3 -m venv $V || exit 1; fi
if ! $V/bin/python -c "import torch, numpy" 2>/dev/null; then
  $V/bin/python -m pip install -q torch==2.13.0 numpy || exit 1
fi
echo "peers: $($V/bin/python -c 'import torch; print("torch", torch.__version__)')"
