"""The seed document's examples, run as written with tandem in place of mindspore."""
import numpy as np

import tandem
from tandem import mint


def compute(x, y):
    z = x + y
    w = z * 2
    return w


def test_compute_pynative():
    x = mint.Tensor([1])
    y = mint.Tensor([2])
    result = compute(x, y)
    assert result.tolist() == [6]
    assert "value=" in repr(result)


def test_x_plus_x_plus_x():
    x = mint.randn(4, 5)
    y = x + x + x
    np.testing.assert_allclose(y.numpy(), 3 * x.numpy(), rtol=1e-6)


def test_numpy_roundtrip_shares_memory():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = tandem.from_numpy(a)
    a[0, 0] = 42
    assert t[0, 0].item() == 42
    n = t.numpy()
    n[1, 2] = -1
    assert t[1, 2].item() == -1
