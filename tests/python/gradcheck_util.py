"""Finite-difference gradient checking in float64, shared by the gradcheck case files."""
from __future__ import annotations

import numpy as np

import tandem


def numeric_grads(fn, inputs, weights, eps=1e-6):
    """Central differences of sum(fn(*inputs) * weights) for each floating input."""
    grads = []
    for k, x in enumerate(inputs):
        if not isinstance(x, tandem.Tensor) or not x.dtype.is_floating_point:
            grads.append(None)
            continue
        base = x.detach().numpy().copy()
        g = np.zeros_like(base)
        for i in np.ndindex(base.shape):
            vals = []
            for d in (eps, -eps):
                p = base.copy()
                p[i] += d
                args = list(inputs)
                args[k] = tandem.tensor(p)
                out = fn(*args)
                outs = out if isinstance(out, (tuple, list)) else (out,)
                vals.append(sum(float((o.double() * w).sum()) for o, w in zip(outs, weights)
                                if o.dtype.is_floating_point))
            g[i] = (vals[0] - vals[1]) / (2 * eps)
        grads.append(g)
    return grads


def gradcheck(fn, inputs, atol=1e-6, rtol=1e-5, eps=1e-6, seed=0):
    """Compares autograd gradients of fn at float64 inputs with finite differences.

    fn(*inputs) returns a tensor or a tuple of tensors; the scalar checked is
    sum_k sum(out_k * w_k) with fixed random weights w_k. Raises AssertionError on mismatch.
    """
    rng = np.random.default_rng(seed)
    leaves = [x.detach().requires_grad_(True) if isinstance(x, tandem.Tensor)
              and x.dtype.is_floating_point else x for x in inputs]
    out = fn(*leaves)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    weights = [tandem.tensor(rng.standard_normal(o.shape)) for o in outs]
    total = None
    for o, w in zip(outs, weights):
        if not o.dtype.is_floating_point or not o.requires_grad:
            continue
        term = (o * w).sum()
        total = term if total is None else total + term
    assert total is not None, "gradcheck: no differentiable output"
    diff = [x for x in leaves if isinstance(x, tandem.Tensor) and x.requires_grad]
    analytic = tandem.autograd.grad(total, diff, allow_unused=True)
    numeric = numeric_grads(fn, inputs, weights, eps)
    it = iter(analytic)
    for k, (x, n) in enumerate(zip(leaves, numeric)):
        if n is None:
            continue
        a = next(it)
        a = np.zeros_like(n) if a is None else a.numpy()
        np.testing.assert_allclose(a, n, atol=atol, rtol=rtol,
                                   err_msg=f"gradient of input {k} differs from finite differences")


def rand(*shape, low=-1.0, high=1.0, seed=None):
    """A float64 tensor of uniform values (deterministic per shape unless seed given)."""
    rng = np.random.default_rng(hash((shape, seed)) % (2**32))
    return tandem.tensor(rng.uniform(low, high, shape))
