#!/usr/bin/env bash
# Creates the venvs of the peer frameworks used only for side-by-side measurement (never
# tandem dependencies): benchmarks/.peers-venv (torch==2.13.0 CPU, jax[cpu]) and
# benchmarks/.peers-venv/ms (mindspore, which needs numpy<2 and so cannot share torch's
# venv). Idempotent; safe to fail: it prints "unavailable NAME: reason" for a peer that
# cannot be installed (benchmarks then report that reason in the peer's cells), and exits
# non-zero only when the torch venv itself cannot be made.
set -uo pipefail
cd "$(dirname "$0")"
V=.peers-venv
MS=$V/ms  # inside .peers-venv/, which .gitignore already covers
PIP="-m pip install -q --disable-pip-version-check"

last_error() { grep -E "ERROR|error:" "$1" | tail -1 | cut -c1-200; }

if [ ! -x $V/bin/python ]; then python3 -m venv $V || exit 1; fi
if ! $V/bin/python -c "import torch, numpy" 2>/dev/null; then
  $V/bin/python $PIP torch==2.13.0 numpy || exit 1
fi
echo "peers: $($V/bin/python -c 'import torch; print("torch", torch.__version__)')"

if ! $V/bin/python -c "import jax" 2>/dev/null; then
  $V/bin/python $PIP "jax[cpu]" >/tmp/peers_jax.log 2>&1
fi
if $V/bin/python -c "import jax" 2>/dev/null; then
  echo "peers: jax $($V/bin/python -c 'import jax; print(jax.__version__)')"
else
  echo "unavailable jax: pip install jax[cpu] failed: $(last_error /tmp/peers_jax.log)"
fi

if [ ! -x $MS/bin/python ]; then python3 -m venv $MS; fi
if ! $MS/bin/python -c "import mindspore" 2>/dev/null; then
  # MindSpore's wheels are built against NumPy 1.x.
  $MS/bin/python $PIP mindspore "numpy<2" >/tmp/peers_ms.log 2>&1
fi
if $MS/bin/python -c "import mindspore" 2>/dev/null; then
  echo "peers: mindspore $($MS/bin/python -c 'import mindspore; print(mindspore.__version__)' 2>/dev/null | tail -1)"
else
  echo "unavailable mindspore: no installable wheel for Python $(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])') here: $(last_error /tmp/peers_ms.log)"
fi
exit 0
