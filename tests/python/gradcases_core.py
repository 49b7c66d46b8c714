"""Gradcheck cases for the ops whose rules came with the autodiff core."""
from gradcheck_util import rand
import tandem
from tandem import mint


def _slice_grad(a):
    a = a if a.requires_grad else a.detach().requires_grad_()
    return tandem.autograd.grad((a[1:] * a[1:]).sum(), a, create_graph=True)[0]


def bcast(op):
    return lambda: (op, [rand(3, 4), rand(4)])


CASES = {
    "add": [bcast(lambda a, b: a + b), lambda: (lambda a, b: mint.add(a, b, alpha=2.5), [rand(2, 3), rand(2, 3)])],
    "sub": [bcast(lambda a, b: a - b), lambda: (lambda a, b: mint.sub(a, b, alpha=-1.5), [rand(2, 3), rand(1, 3)])],
    "mul": [bcast(lambda a, b: a * b), lambda: (lambda a: a * a.t(), [rand(3, 3)])],
    "div": [lambda: (lambda a, b: a / b, [rand(3, 4), rand(4, low=0.5, high=2.0)])],
    "neg": [lambda: (lambda a: -a, [rand(3)])],
    "exp": [lambda: (mint.exp, [rand(2, 3)])],
    "log": [lambda: (mint.log, [rand(2, 3, low=0.2, high=2.0)])],
    "tanh": [lambda: (mint.tanh, [rand(5)])],
    "sigmoid": [lambda: (mint.sigmoid, [rand(5)])],
    "relu": [lambda: (mint.relu, [tandem.tensor([-1.0, -0.3, 0.4, 2.0], dtype=tandem.float64)])],
    "reshape": [lambda: (lambda a: a.t().reshape(-1), [rand(3, 4)])],
    "view": [lambda: (lambda a: a.view(4, 3), [rand(3, 4)])],
    "squeeze": [lambda: (lambda a: a.squeeze(1), [rand(3, 1, 2)])],
    "unsqueeze": [lambda: (lambda a: a.unsqueeze(0), [rand(3, 2)])],
    "permute": [lambda: (lambda a: a.permute(2, 0, 1), [rand(2, 3, 4)])],
    "expand": [lambda: (lambda a: a.expand(3, 4), [rand(4)])],
    "slice": [lambda: (lambda a: a[1:, ::2], [rand(3, 5)]), lambda: (lambda a: a[::-1], [rand(4)])],
    "select": [lambda: (lambda a: a[1], [rand(3, 2)])],
    "diagonal": [lambda: (lambda a: a.diagonal(1), [rand(3, 4)])],
    "as_strided": [lambda: (lambda a: a.as_strided((2, 2), (1, 2)), [rand(6)]),
                   # overlapping windows, over a slice of a larger storage
                   lambda: (lambda a: a[2:].as_strided((3, 3), (1, 1)), [rand(8)])],
    "matmul": [lambda: (lambda a, b: a @ b, [rand(2, 3, 4), rand(4, 5)]),
               lambda: (lambda a, b: a @ b, [rand(4), rand(4, 2)])],
    # Diagonally dominant, so the matrices stay far from singular under the perturbations.
    "inv": [lambda: (mint.inverse, [rand(3, 3, low=-0.3, high=0.3) + tandem.eye(3, dtype=tandem.float64) * 2]),
            lambda: (mint.linalg.inv, [rand(2, 3, 3, low=-0.3, high=0.3) + tandem.eye(3, dtype=tandem.float64) * 2])],
    "cast": [lambda: (lambda a: tandem._C.to_dtype(a, tandem.float64, True), [rand(3)])],
    "sum": [lambda: (lambda a: a.sum(1), [rand(3, 4)]), lambda: (lambda a: a.sum((0, 2), keepdim=True), [rand(2, 3, 4)])],
    "mean": [lambda: (lambda a: a.mean(0), [rand(3, 4)])],
    # view_scatter runs in the backward of views; differentiate such a backward.
    "view_scatter": [lambda: (_slice_grad, [rand(4)])],
}


def _write_through_view(a, b):
    y = a * 2.0
    y[1:3] = b * b  # recorded as view_assign(y, b * b) against y's history
    return y


CASES["view_assign"] = [lambda: (_write_through_view, [rand(5), rand(2)])]


def _as_strided_grad(a):
    """d/da sum(as_strided(a)^3) over overlapping windows of an expanded slice: its own
    derivative is as_strided_backward's rule."""
    a = a if a.requires_grad else a.detach().requires_grad_()
    y = a[1:4].unsqueeze(1).expand(3, 2).as_strided((2, 2), (1, 1), a[1:4].storage_offset())
    return tandem.autograd.grad((y * y * y).sum(), a, create_graph=True)[0]


CASES["as_strided_backward"] = [lambda: (_as_strided_grad, [rand(6)])]


def _second_order(forward):
    """x -> d/dx sum(forward(x) ** 3): differentiating it exercises the backward op's rule."""
    def fn(x, w):
        x = x if x.requires_grad else x.detach().requires_grad_()
        w = w if w.requires_grad else w.detach().requires_grad_()
        y = forward(x, w)
        gx, gw = tandem.autograd.grad((y * y * y).sum(), (x, w), create_graph=True)
        return gx, gw
    return fn


_F = tandem.mint.nn.functional
CASES["layer_norm_backward"] = [
    lambda: (_second_order(lambda x, w: _F.layer_norm(x, (4,), w)), [rand(3, 4), rand(4, low=0.5)])]
CASES["batch_norm_backward"] = [
    lambda: (_second_order(lambda x, w: _F.batch_norm(x, None, None, w, None, training=True)),
             [rand(4, 3, 2), rand(3, low=0.5)])]
CASES["group_norm_backward"] = [
    lambda: (_second_order(lambda x, w: _F.group_norm(x, 2, w)), [rand(2, 4, 3), rand(4, low=0.5)])]
