"""In-place writes through views of tensors with history (PyTorch's CopySlices semantics)."""
import numpy as np
import pytest

import tandem
from tandem import mint


def leaf(values):
    return tandem.tensor(np.asarray(values, dtype=np.float64)).requires_grad_()


def test_setitem_on_a_non_leaf():
    w = leaf([1.0, 2.0, 3.0])
    y = w * 2
    y[0] = w[1] * 5  # y = [5 w1, 2 w1, 2 w2]
    (y * tandem.tensor([1.0, 2.0, 3.0], dtype=tandem.float64)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [0.0, 9.0, 6.0])


def test_setitem_of_a_value_that_requires_grad_into_a_plain_tensor():
    w = leaf([1.0, 2.0, 3.0])
    x = mint.zeros(4, dtype=tandem.float64)
    x[1:3] = w[:2] * 3
    assert x.requires_grad
    x.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 3.0, 0.0])


def test_in_place_op_on_a_slice():
    w = leaf([1.0, 2.0, 3.0])
    z = w * 3.0
    z[1:].mul_(2)
    z.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 6.0, 6.0])


def test_mask_assignment_on_a_non_leaf():
    w = leaf([1.0, -2.0, 3.0, -4.0])
    y = w * 1.0
    y[y < 0] = 0.0  # relu by masking
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 0.0, 1.0, 0.0])


def test_write_through_a_view_of_a_leaf_raises():
    w = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="view of a leaf"):
        w[0] = 5.0
    with tandem.no_grad():
        w[0] = 5.0  # allowed without recording, like PyTorch
    assert w[0].item() == 5.0
