import numpy as np
import pytest

import tandem


@pytest.fixture(autouse=True)
def _seed():
    tandem.manual_seed(1234)
    np.random.seed(1234)
    yield
