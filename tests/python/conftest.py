import os

# Bit-for-bit comparisons (eager vs graph, reruns) need one thread count for the whole run:
# the load-adaptive policy (src/tandem/core/threads.h, tested in C++) may otherwise drop to
# one thread between two runs on a busy machine, and oneDNN's weight gradients depend on it.
os.environ.setdefault("TANDEM_ADAPTIVE_THREADS", "0")

import numpy as np
import pytest

import tandem


@pytest.fixture(autouse=True)
def _seed():
    tandem.manual_seed(1234)
    np.random.seed(1234)
    yield
