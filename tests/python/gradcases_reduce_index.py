"""Gradcheck cases for reductions, scans, sorting, indexing and joining ops (and a few
composites built on them, listed under the op they exercise). Inputs avoid ties, so the
selecting ops are differentiable there."""
import numpy as np

from gradcheck_util import rand
import tandem
from tandem import mint


def t(values):
    return tandem.tensor(np.asarray(values, dtype=np.float64))


def ix(values):
    return tandem.tensor(np.asarray(values, dtype=np.int64))


NAN = float("nan")

CASES = {
    "amax": [
        lambda: (lambda a: mint.amax(a, 1), [rand(3, 4)]),
        lambda: (lambda a: a.amax((0, 2), keepdim=True), [rand(2, 3, 4)]),
        lambda: (lambda a: mint.max(a), [rand(5)]),
        # logsumexp shifts by a detached amax; its gradient is softmax
        lambda: (lambda a: mint.logsumexp(a, 1), [rand(3, 4, low=-3, high=3)]),
        lambda: (lambda a: mint.norm(a, float("inf"), 1), [rand(3, 4)]),
    ],
    "amin": [
        lambda: (lambda a: mint.amin(a, 0), [rand(3, 4)]),
        lambda: (lambda a: mint.min(a), [rand(2, 3)]),
    ],
    "prod": [
        lambda: (lambda a: mint.prod(a, 1), [rand(3, 4, low=0.5, high=1.5)]),
        lambda: (lambda a: mint.prod(a), [rand(2, 3, low=-1.5, high=1.5)]),
        lambda: (lambda a: mint.prod(a, 0, keepdim=True), [t([[0.5, 0.0, 2.0], [0.0, 0.0, 1.5], [1.2, -0.7, 0.3]])]),
        lambda: (lambda a: a.permute(1, 0, 2).prod((0, 2)), [t(np.array([0.0, 0.7, -1.1, 0.0, 1.3, 0.9, 0.4, 2.0, 0.0, -0.6, 1.5, 0.8]).reshape(2, 3, 2))]),
    ],
    "max_dim": [
        lambda: (lambda a: mint.max(a, 1)[0], [rand(3, 4)]),
        lambda: (lambda a: mint.max(a, dim=0, keepdim=True), [rand(3, 4)]),
        lambda: (lambda a: mint.argmax(a, 1).double() + a.max(-1)[0], [rand(2, 5)]),
    ],
    "min_dim": [
        lambda: (lambda a: mint.min(a, -1)[0], [rand(3, 4)]),
        lambda: (lambda a: mint.min(a, 1, keepdim=True), [rand(2, 3, 2)]),
    ],
    "cumsum": [
        lambda: (lambda a: mint.cumsum(a, 1), [rand(3, 4)]),
        lambda: (lambda a: mint.cumsum(a.t(), 0), [rand(3, 4)]),
    ],
    "cumprod": [
        lambda: (lambda a: mint.cumprod(a, 1), [rand(3, 4, low=0.5, high=1.5)]),
        lambda: (lambda a: mint.cumprod(a, 0), [rand(5, 2, low=-1.5, high=1.5)]),
        # zeros: before, at and after the first zero of a row, and two zeros in a row
        lambda: (lambda a: mint.cumprod(a, 1), [t([[0.5, 0.0, 2.0, 1.5, -0.7], [1.3, -0.4, 0.0, 0.0, 0.8], [0.0, 1.1, 0.9, 1.2, 0.6]])]),
    ],
    "logcumsumexp": [
        lambda: (lambda a: mint.logcumsumexp(a, 1), [rand(3, 4, low=-2, high=2)]),
        lambda: (lambda a: mint.logcumsumexp(a, 0), [t([[-40.0, 35.0], [30.0, -25.0], [31.0, 36.0]])]),
    ],
    "cummax": [
        lambda: (lambda a: mint.cummax(a, 1)[0], [rand(3, 5)]),
        lambda: (lambda a: mint.cummax(a, 0), [rand(4, 2)]),
    ],
    "cummin": [
        lambda: (lambda a: mint.cummin(a, -1)[0], [rand(2, 6)]),
    ],
    "sort": [
        lambda: (lambda a: mint.sort(a, 1)[0], [rand(3, 4)]),
        lambda: (lambda a: mint.sort(a, 0, descending=True), [rand(4, 3)]),
        lambda: (lambda a: mint.sort(a)[0].cumsum(0), [rand(6)]),
    ],
    "topk": [
        lambda: (lambda a: mint.topk(a, 2, 1)[0], [rand(3, 5)]),
        lambda: (lambda a: mint.topk(a, 3, 0, largest=False)[0], [rand(4, 2)]),
    ],
    "kthvalue": [
        lambda: (lambda a: mint.kthvalue(a, 2, 1)[0], [rand(3, 4)]),
        lambda: (lambda a: mint.kthvalue(a, 3, 0, keepdim=True)[0], [rand(4, 2)]),
    ],
    "median": [
        lambda: (lambda a: mint.median(a), [rand(3, 3)]),
        lambda: (lambda a: mint.median(a, 1)[0], [rand(3, 5)]),
    ],
    "nanmedian": [
        lambda: (lambda a: mint.nanmedian(a, 1)[0], [t([[0.3, NAN, -0.2, 0.9], [1.1, 0.4, -0.8, 0.2]])]),
        lambda: (lambda a: mint.nanmedian(a), [rand(2, 3)]),
    ],
    "mode": [
        # all values distinct: the mode is the smallest element
        lambda: (lambda a: mint.mode(a, 1)[0], [rand(3, 4)]),
    ],
    "index": [
        lambda: (lambda a: a[ix([0, 2, 0])], [rand(3, 4)]),
        lambda: (lambda a: a[:, ix([[1, 3], [3, 3]])], [rand(2, 4)]),
        lambda: (lambda a: a[ix([0, 1]), :, ix([2, 0])], [rand(2, 3, 4)]),
        lambda: (lambda a: mint.index_select(a, 1, ix([2, 0, 2])), [rand(3, 4)]),
        lambda: (lambda a: mint.take(a, ix([[0, 5], [5, 11]])), [rand(3, 4)]),
        lambda: (lambda a: mint.repeat_interleave(a, ix([1, 0, 3]), dim=0), [rand(3, 2)]),
    ],
    "index_put": [
        lambda: (lambda a, v: a.index_put((ix([2, 0]),), v), [rand(3, 4), rand(2, 4, seed=1)]),
        lambda: (lambda a, v: a.index_put((ix([2, 0, 2]), ix([1, 1, 1])), v, accumulate=True), [rand(3, 4), rand(3, seed=2)]),
        lambda: (lambda a, v: a.index_put((ix([1]), ix([0, 3])), v), [rand(3, 4), rand(1, seed=3)]),
    ],
    "gather": [
        lambda: (lambda a: mint.gather(a, 1, ix([[0, 0, 3], [2, 1, 2]])), [rand(2, 4)]),
        lambda: (lambda a: mint.gather(a, 0, ix([[1, 0], [1, 1], [0, 1]])), [rand(2, 3)]),
    ],
    "scatter": [
        lambda: (lambda a, s: mint.scatter(a, 1, ix([[0, 2], [3, 1]]), s), [rand(2, 4), rand(2, 2, seed=1)]),
        # src larger than index: only its leading block is used
        lambda: (lambda a, s: mint.scatter(a, 0, ix([[1, 0, 2]]), s), [rand(3, 3), rand(2, 4, seed=1)]),
        lambda: (lambda a, s: mint.scatter_add(a, 1, ix([[0, 0, 2], [3, 1, 3]]), s), [rand(2, 4), rand(2, 3, seed=1)]),
        lambda: (lambda a: mint.scatter(a, 0, ix([[2, 0]]), value=1.5), [rand(3, 2)]),
        # the mean reduction is a composite of the add mode
        lambda: (lambda a, s: mint.scatter_reduce(a, 0, ix([0, 2, 0]), s, "mean"), [rand(3), rand(3, seed=1)]),
    ],
    "cat": [
        lambda: (lambda a, b: mint.cat([a, b], 1), [rand(2, 3), rand(2, 1, seed=1)]),
        lambda: (lambda a, b: mint.cat([a, mint.zeros(0, dtype=tandem.float64), b]), [rand(3), rand(2)]),
        lambda: (lambda a, b: mint.stack([a, b], 1), [rand(2, 3), rand(2, 3, seed=1)]),
    ],
    "pad": [
        lambda: (lambda a: mint.pad(a, (1, 2, 0, 1)), [rand(2, 3)]),
        lambda: (lambda a: mint.pad(a, (-1, 2, 1, -1), value=0.5), [rand(3, 4)]),
        lambda: (lambda a: mint.pad(a, (2, 1, 1, 2), mode="reflect"), [rand(1, 3, 4)]),
        lambda: (lambda a: mint.pad(a, (3, 1, 0, 2), mode="replicate"), [rand(2, 3)]),
        lambda: (lambda a: mint.pad(a, (2, 1, 3, 0), mode="circular"), [rand(3, 2)]),
    ],
    "roll": [
        lambda: (lambda a: mint.roll(a, (1, -3), (0, 1)), [rand(3, 4)]),
        lambda: (lambda a: mint.roll(a, 5), [rand(2, 3)]),
    ],
    "tril": [lambda: (lambda a: mint.tril(a, -1), [rand(2, 3, 4)]), lambda: (lambda a: mint.tril(a), [rand(3, 3)])],
    "triu": [lambda: (lambda a: mint.triu(a, 1), [rand(4, 3)])],
    "repeat_interleave": [
        lambda: (lambda a: a.repeat_interleave(3, dim=1), [rand(2, 3)]),
        lambda: (lambda a: mint.repeat_interleave(a, 2), [rand(2, 2)]),
    ],
    "diag_embed": [
        lambda: (lambda a: mint.diag(a), [rand(3)]),
        lambda: (lambda a: mint.diag(a, -2), [rand(2)]),
    ],
    # composites made of views and copies
    "slice": [lambda: (lambda a: mint.flip(a, (0, 1)), [rand(2, 3)])],
    "expand": [
        lambda: (lambda a: a.repeat(2, 1, 3), [rand(2, 2)]),
        lambda: (lambda a: mint.tile(a, (2,)), [rand(3)]),
    ],
    "mean": [
        lambda: (lambda a: mint.var(a, 1), [rand(3, 4)]),
        lambda: (lambda a: mint.var(a, (0, 1), correction=0), [rand(2, 3)]),
    ],
    "sqrt": [
        lambda: (lambda a: mint.std(a, 1), [rand(3, 4)]),
        lambda: (lambda a: mint.norm(a), [rand(3, 4)]),
    ],
    "where": [
        lambda: (lambda a: mint.masked_fill(a, tandem.tensor([[True, False, True], [False, False, True]]), 2.0), [rand(2, 3)]),
    ],
}
