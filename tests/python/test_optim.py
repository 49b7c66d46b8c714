"""Optimizers: tandem.mint.optim (PyTorch face) and tandem.nn optimizers (MindSpore face)
against numpy re-implementations of the published update rules, plus param groups, state
round trips, convergence on a small regression and the error cases."""
import numpy as np
import pytest

import tandem
from tandem import autograd, mint
from tandem.mint import optim
from tandem.nn import optim as msoptim
from tandem import Parameter

RNG = np.random.default_rng(0)
P0 = RNG.standard_normal((2, 3))
# Three gradients of different sizes, so AMSGrad's running max and the moments matter.
GRADS = [RNG.standard_normal((2, 3)) * s for s in (1.0, 2.0, 0.1)]


def f32(x: float) -> float:
    """MindSpore keeps learning rates as float32."""
    return float(np.float32(x))


# --- numpy references (one step each; state is a dict) -------------------------------------
def ref_sgd(p, g, s, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
            maximize=False):
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    if momentum:
        if "buf" not in s:
            s["buf"] = g.copy()
        else:
            s["buf"] = momentum * s["buf"] + (1 - dampening) * g
        g = g + momentum * s["buf"] if nesterov else s["buf"]
    return p - lr * g


def ref_adam(p, g, s, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
             maximize=False, decoupled=False):
    b1, b2 = betas
    g = -g if maximize else g
    t = s["t"] = s.get("t", 0) + 1
    if decoupled:
        p = p * (1 - lr * weight_decay)
    elif weight_decay:
        g = g + weight_decay * p
    s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
    v = s["v"]
    if amsgrad:
        v = s["vmax"] = np.maximum(s.get("vmax", 0.0), s["v"])
    m_hat = s["m"] / (1 - b1 ** t)
    v_hat = v / (1 - b2 ** t)
    return p - lr * m_hat / (np.sqrt(v_hat) + eps)


def ref_adamw(p, g, s, weight_decay=1e-2, **kw):
    return ref_adam(p, g, s, weight_decay=weight_decay, decoupled=True, **kw)


def ref_rmsprop(p, g, s, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
                centered=False):
    if weight_decay:
        g = g + weight_decay * p
    s["sq"] = alpha * s.get("sq", 0.0) + (1 - alpha) * g * g
    avg = s["sq"]
    if centered:
        s["ga"] = alpha * s.get("ga", 0.0) + (1 - alpha) * g
        avg = avg - s["ga"] ** 2
    avg = np.sqrt(avg) + eps
    if momentum > 0:
        s["buf"] = momentum * s.get("buf", 0.0) + g / avg
        return p - lr * s["buf"]
    return p - lr * g / avg


def ref_adagrad(p, g, s, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0,
                eps=1e-10):
    t = s["t"] = s.get("t", 0) + 1
    if weight_decay:
        g = g + weight_decay * p
    clr = lr / (1 + (t - 1) * lr_decay)
    s["sum"] = s.get("sum", initial_accumulator_value) + g * g
    return p - clr * g / (np.sqrt(s["sum"]) + eps)


def ref_adadelta(p, g, s, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0):
    if weight_decay:
        g = g + weight_decay * p
    s["sq"] = rho * s.get("sq", 0.0) + (1 - rho) * g * g
    delta = np.sqrt(s.get("acc", 0.0) + eps) / np.sqrt(s["sq"] + eps) * g
    s["acc"] = rho * s.get("acc", 0.0) + (1 - rho) * delta * delta
    return p - lr * delta


def ref_ms_momentum(p, g, s, lr, momentum, weight_decay=0.0, use_nesterov=False):
    if weight_decay:
        g = g + weight_decay * p
    s["acc"] = momentum * s.get("acc", 0.0) + g
    return p - lr * (g + momentum * s["acc"] if use_nesterov else s["acc"])


def ref_ms_adam(p, g, s, lr, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0,
                use_nesterov=False):
    t = s["t"] = s.get("t", 0) + 1
    if weight_decay:
        g = g + weight_decay * p
    s["m"] = beta1 * s.get("m", 0.0) + (1 - beta1) * g
    s["v"] = beta2 * s.get("v", 0.0) + (1 - beta2) * g * g
    lr_t = lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    num = beta1 * s["m"] + (1 - beta1) * g if use_nesterov else s["m"]
    return p - lr_t * num / (np.sqrt(s["v"]) + eps)


def ref_ms_adamwd(p, g, s, lr, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
    s["m"] = beta1 * s.get("m", 0.0) + (1 - beta1) * g
    s["v"] = beta2 * s.get("v", 0.0) + (1 - beta2) * g * g
    update = s["m"] / (np.sqrt(s["v"]) + eps) + weight_decay * p
    return p - lr * update


def leaf(a):
    return tandem.tensor(np.array(a, dtype=np.float64)).requires_grad_()


# --- PyTorch face: three updates against the references ----------------------------------
TORCH_CASES = [
    (optim.SGD, ref_sgd, dict(lr=0.1)),
    (optim.SGD, ref_sgd, dict(lr=0.1, momentum=0.9)),
    (optim.SGD, ref_sgd, dict(lr=0.1, momentum=0.9, dampening=0.3)),
    (optim.SGD, ref_sgd, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.05)),
    (optim.SGD, ref_sgd, dict(lr=0.05, weight_decay=0.1, maximize=True)),
    (optim.Adam, ref_adam, dict()),
    (optim.Adam, ref_adam, dict(lr=0.05, betas=(0.8, 0.9), eps=1e-3, weight_decay=0.1)),
    (optim.Adam, ref_adam, dict(lr=0.05, amsgrad=True)),
    (optim.Adam, ref_adam, dict(lr=0.05, maximize=True)),
    (optim.AdamW, ref_adamw, dict(lr=0.05)),
    (optim.AdamW, ref_adamw, dict(lr=0.05, weight_decay=0.3, amsgrad=True)),
    (optim.RMSprop, ref_rmsprop, dict()),
    (optim.RMSprop, ref_rmsprop, dict(lr=0.05, centered=True)),
    (optim.RMSprop, ref_rmsprop, dict(lr=0.05, momentum=0.8, weight_decay=0.1)),
    (optim.RMSprop, ref_rmsprop, dict(lr=0.05, alpha=0.9, momentum=0.5, centered=True)),
    (optim.Adagrad, ref_adagrad, dict()),
    (optim.Adagrad, ref_adagrad, dict(lr=0.1, lr_decay=0.5, weight_decay=0.1,
                                      initial_accumulator_value=0.2)),
    (optim.Adadelta, ref_adadelta, dict()),
    (optim.Adadelta, ref_adadelta, dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.2)),
]


@pytest.mark.parametrize("cls,ref,kw", TORCH_CASES,
                         ids=[f"{c.__name__}-{i}" for i, (c, _, _) in enumerate(TORCH_CASES)])
def test_three_updates(cls, ref, kw):
    p = leaf(P0)
    opt = cls([p], **kw)
    want, s = P0.copy(), {}
    for g in GRADS:
        p.grad = tandem.tensor(g)
        opt.step()
        want = ref(want, g, s, **kw)
        np.testing.assert_allclose(p.detach().numpy(), want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam, optim.RMSprop])
def test_float32_params(cls):
    p = tandem.tensor(P0.astype(np.float32)).requires_grad_()
    ref = {optim.SGD: ref_sgd, optim.Adam: ref_adam, optim.RMSprop: ref_rmsprop}[cls]
    opt = cls([p], lr=0.05, momentum=0.9) if cls is not optim.Adam else cls([p], lr=0.05)
    kw = dict(lr=0.05, momentum=0.9) if cls is not optim.Adam else dict(lr=0.05)
    want, s = P0.copy(), {}
    for g in GRADS:
        p.grad = tandem.tensor(g.astype(np.float32))
        opt.step()
        want = ref(want, g, s, **kw)
    assert p.dtype == tandem.float32
    buffers = [t for t in opt.state[p].values() if isinstance(t, tandem.Tensor)]
    assert buffers and all(t.dtype == tandem.float32 for t in buffers)
    np.testing.assert_allclose(p.detach().numpy(), want, rtol=1e-5, atol=1e-6)


def test_params_without_grad_are_skipped():
    a, b = leaf(P0), leaf(P0)
    opt = optim.Adam([a, b], lr=0.1)
    a.grad = tandem.tensor(GRADS[0])
    opt.step()
    np.testing.assert_array_equal(b.detach().numpy(), P0)
    assert b not in opt.state and a in opt.state and opt.state[a]["step"] == 1


def test_zero_grad():
    p = leaf(P0)
    opt = optim.SGD([p], lr=0.1)
    (p * p).sum().backward()
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(p.grad.detach().numpy(), np.zeros((2, 3)))
    opt.zero_grad()
    assert p.grad is None


def test_step_with_closure():
    p = leaf(P0)
    opt = optim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with tandem.no_grad():
        loss = opt.step(closure)
    assert abs(float(loss) - float((P0 * P0).sum())) < 1e-12
    np.testing.assert_allclose(p.detach().numpy(), P0 - 0.1 * 2 * P0, rtol=1e-12)


def test_updates_are_not_recorded():
    p = leaf(P0)
    opt = optim.Adam([p], lr=0.1)
    p.grad = tandem.tensor(GRADS[0])
    opt.step()
    assert p.is_leaf and p.requires_grad and p._grad_fn_name == ""


# --- param groups ---------------------------------------------------------------------------
def test_param_groups_and_lr_write():
    w, b = leaf(P0), leaf(P0[0])
    opt = optim.SGD([{"params": [w]}, {"params": b, "lr": 0.01, "momentum": 0.5}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.01]
    assert opt.param_groups[1]["momentum"] == 0.5 and opt.param_groups[0]["momentum"] == 0
    sw, sb = {}, {}
    want_w, want_b = P0.copy(), P0[0].copy()
    for i, g in enumerate(GRADS):
        if i == 1:
            opt.param_groups[0]["lr"] = 0.5
            opt.param_groups[1]["momentum"] = 0.9
        w.grad, b.grad = tandem.tensor(g), tandem.tensor(g[1])
        opt.step()
        want_w = ref_sgd(want_w, g, sw, lr=0.1 if i == 0 else 0.5)
        want_b = ref_sgd(want_b, g[1], sb, lr=0.01, momentum=0.5 if i == 0 else 0.9)
        np.testing.assert_allclose(w.detach().numpy(), want_w, rtol=1e-12)
        np.testing.assert_allclose(b.detach().numpy(), want_b, rtol=1e-12)


def test_betas_write_and_add_param_group():
    a, b = leaf(P0), leaf(P0)
    opt = optim.Adam([a], lr=0.05)
    opt.add_param_group({"params": [b], "betas": (0.5, 0.6)})
    assert opt.param_groups[1]["lr"] == 0.05 and opt.param_groups[1]["betas"] == (0.5, 0.6)
    opt.param_groups[0]["betas"] = (0.5, 0.6)  # what OneCycleLR does with cycle_momentum
    for g in GRADS:
        a.grad, b.grad = tandem.tensor(g), tandem.tensor(g)
        opt.step()
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    want, s = P0.copy(), {}
    for g in GRADS:
        want = ref_adam(want, g, s, lr=0.05, betas=(0.5, 0.6))
    np.testing.assert_allclose(a.detach().numpy(), want, rtol=1e-12)


def test_scheduler_drives_lr():
    p = leaf(P0)
    opt = optim.SGD([p], lr=1.0)
    sched = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    want = P0.copy()
    for i, g in enumerate(GRADS):
        p.grad = tandem.tensor(g)
        opt.step()
        sched.step()
        want = want - 0.5 ** i * g
    np.testing.assert_allclose(p.detach().numpy(), want, rtol=1e-12)


# --- state_dict round trip --------------------------------------------------------------------
ROUND_TRIP = [
    (optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True)),
    (optim.Adam, dict(lr=0.05, amsgrad=True)),
    (optim.AdamW, dict(lr=0.05)),
    (optim.RMSprop, dict(lr=0.05, momentum=0.5, centered=True)),
    (optim.Adagrad, dict(lr=0.1, lr_decay=0.1)),
    (optim.Adadelta, dict()),
]


@pytest.mark.parametrize("cls,kw", ROUND_TRIP, ids=[c.__name__ for c, _ in ROUND_TRIP])
def test_state_dict_round_trip(cls, kw):
    def make(values):
        a, b = leaf(values[0]), leaf(values[1])
        return (a, b), cls([{"params": [a]}, {"params": [b], "lr": 0.02}], **kw)

    (a, b), opt = make([P0, P0[:, :2]])
    for g in GRADS[:2]:
        a.grad, b.grad = tandem.tensor(g), tandem.tensor(g[:, :2])
        opt.step()
    opt.param_groups[0]["lr"] = 0.03
    sd = opt.state_dict()
    assert sd["param_groups"][0]["params"] == [0] and sd["param_groups"][1]["params"] == [1]
    assert sd["param_groups"][0]["lr"] == 0.03
    saved = {k: {n: (v.detach().numpy().copy() if isinstance(v, tandem.Tensor) else v)
                 for n, v in d.items()} for k, d in sd["state"].items()}
    (a2, b2), opt2 = make([a.detach().numpy().copy(), b.detach().numpy().copy()])
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.03 and opt2.param_groups[1]["lr"] == 0.02
    for i in range(4):
        g = GRADS[i % 3] * (i + 1)
        for x, y in ((a, a2), (b, b2)):
            gx = g if x is a else g[:, :2]
            x.grad, y.grad = tandem.tensor(gx), tandem.tensor(gx)
        opt.step()
        opt2.step()
        np.testing.assert_array_equal(a.detach().numpy(), a2.detach().numpy())
        np.testing.assert_array_equal(b.detach().numpy(), b2.detach().numpy())
    # The saved dict holds copies: stepping the optimizer did not change it.
    for k, d in sd["state"].items():
        for n, v in d.items():
            got = v.detach().numpy() if isinstance(v, tandem.Tensor) else v
            np.testing.assert_array_equal(got, saved[k][n])


def test_load_state_dict_errors():
    a, b = leaf(P0), leaf(P0)
    opt = optim.Adam([a, b])
    a.grad = b.grad = tandem.tensor(GRADS[0])
    opt.step()
    sd = opt.state_dict()
    with pytest.raises(ValueError, match="parameter group"):
        optim.Adam([leaf(P0)]).load_state_dict(sd)
    with pytest.raises(ValueError, match="shape"):
        optim.Adam([leaf(P0[0]), leaf(P0)]).load_state_dict(sd)
    with pytest.raises(ValueError, match="has 1 parameter groups, the optimizer has 2"):
        optim.Adam([{"params": [leaf(P0)]}, {"params": [leaf(P0)]}]).load_state_dict(sd)


# --- MindSpore face ---------------------------------------------------------------------------
def param(values, name):
    return Parameter(tandem.tensor(np.array(values, dtype=np.float64)), name=name)


MS_CASES = [
    (msoptim.SGD, ref_sgd, dict(learning_rate=0.1), {}),
    (msoptim.SGD, ref_sgd, dict(learning_rate=0.1, momentum=0.9, dampening=0.2,
                                weight_decay=0.01), {}),
    (msoptim.SGD, ref_sgd, dict(learning_rate=0.1, momentum=0.9, nesterov=True),
     dict(nesterov=True)),
    (msoptim.Momentum, ref_ms_momentum, dict(learning_rate=0.1, momentum=0.9), {}),
    (msoptim.Momentum, ref_ms_momentum, dict(learning_rate=0.1, momentum=0.9, weight_decay=0.1,
                                             use_nesterov=True), {}),
    (msoptim.Adam, ref_ms_adam, dict(learning_rate=0.05), {}),
    (msoptim.Adam, ref_ms_adam, dict(learning_rate=0.05, beta1=0.8, eps=1e-3, weight_decay=0.1,
                                     use_nesterov=True), {}),
    (msoptim.AdamWeightDecay, ref_ms_adamwd, dict(learning_rate=0.05, weight_decay=0.1), {}),
]


def _ms_ref_kwargs(ref, kw):
    kw = dict(kw)
    kw["lr"] = f32(kw.pop("learning_rate"))
    if ref is ref_sgd:
        kw.pop("nesterov", None)
    return kw


@pytest.mark.parametrize("cls,ref,kw,extra", MS_CASES,
                         ids=[f"{c.__name__}-{i}" for i, (c, *_) in enumerate(MS_CASES)])
def test_mindspore_three_updates(cls, ref, kw, extra):
    w, b = param(P0, "fc.weight"), param(P0[0], "fc.bias")
    opt = cls([w, b], **kw)
    assert len(opt.parameters) == 2 and opt.parameters[0] is w and opt.parameters[1] is b
    rkw = {**_ms_ref_kwargs(ref, kw), **extra}
    want_w, want_b, sw, sb = P0.copy(), P0[0].copy(), {}, {}
    for g in GRADS:
        assert opt((tandem.tensor(g), tandem.tensor(g[0]))) is True
        want_w = ref(want_w, g, sw, **rkw)
        want_b = ref(want_b, g[0], sb, **rkw)
        np.testing.assert_allclose(w.detach().numpy(), want_w, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(b.detach().numpy(), want_b, rtol=1e-12, atol=1e-14)


def test_mindspore_decay_filter_and_groups():
    # Without groups, 'beta' / 'gamma' parameters (norm layers) get no weight decay.
    w, gamma = param(P0, "fc.weight"), param(P0[0], "bn.gamma")
    opt = msoptim.Momentum([w, gamma], learning_rate=0.1, momentum=0.9, weight_decay=0.1)
    opt((tandem.tensor(GRADS[0]), tandem.tensor(GRADS[0][0])))
    np.testing.assert_allclose(w.detach().numpy(), ref_ms_momentum(P0, GRADS[0], {}, f32(0.1), 0.9, 0.1))
    np.testing.assert_allclose(gamma.detach().numpy(),
                               ref_ms_momentum(P0[0], GRADS[0][0], {}, f32(0.1), 0.9))
    # Groups: per-group lr and weight decay (applied to every parameter of the group).
    w, gamma = param(P0, "fc.weight"), param(P0[0], "bn.gamma")
    opt = msoptim.SGD([{"params": [w], "lr": 0.5}, {"params": [gamma], "weight_decay": 0.2}],
                      learning_rate=0.1)
    assert opt.is_group_lr and len(opt.get_lr()) == 2
    assert float(opt.get_lr_parameter(w)) == f32(0.5)
    opt((tandem.tensor(GRADS[0]), tandem.tensor(GRADS[0][0])))
    np.testing.assert_allclose(w.detach().numpy(), P0 - f32(0.5) * GRADS[0])
    np.testing.assert_allclose(gamma.detach().numpy(),
                               P0[0] - f32(0.1) * (GRADS[0][0] + 0.2 * P0[0]))


@pytest.mark.parametrize("lr", [[0.1, 0.05, 0.01], "tensor", "schedule"])
def test_mindspore_dynamic_lr(lr):
    values = [0.1, 0.05, 0.01]
    if lr == "tensor":
        lr = tandem.tensor(values)
    elif lr == "schedule":
        lr = lambda step: tandem.tensor(values[min(int(step), 2)])  # noqa: E731
    w = param(P0, "w")
    opt = msoptim.SGD([w], learning_rate=lr)
    want = P0.copy()
    for i in range(4):
        assert abs(float(opt.get_lr()) - f32(values[min(i, 2)])) < 1e-9
        g = GRADS[i % 3]
        opt([tandem.tensor(g)])
        want = want - f32(values[min(i, 2)]) * g
        np.testing.assert_allclose(w.detach().numpy(), want, rtol=1e-12)
    assert opt.global_step == 4


def test_mindspore_learning_rate_parameter_is_live():
    w = param(P0, "w")
    opt = msoptim.SGD([w], learning_rate=0.1)
    opt.learning_rate.set_data(tandem.tensor(0.5, tandem.float32))
    opt([tandem.tensor(GRADS[0])])
    np.testing.assert_allclose(w.detach().numpy(), P0 - 0.5 * GRADS[0])


def test_mindspore_loss_scale():
    # Gradients of a loss scaled by 4: MindSpore adds the decay, then divides by the scale.
    w = param(P0, "w")
    opt = msoptim.Momentum([w], learning_rate=0.1, momentum=0.9, weight_decay=0.1, loss_scale=4.0)
    want, s = P0.copy(), {}
    for g in GRADS:
        opt([tandem.tensor(4 * g)])
        acc = 0.9 * s.get("acc", 0.0) + (4 * g + 0.1 * want) / 4
        s["acc"] = acc
        want = want - f32(0.1) * acc
        np.testing.assert_allclose(w.detach().numpy(), want, rtol=1e-12)


def test_mindspore_none_grad_and_state_round_trip():
    w, b = param(P0, "w"), param(P0[0], "b")
    opt = msoptim.Adam([w, b], learning_rate=0.05)
    opt((tandem.tensor(GRADS[0]), None))
    np.testing.assert_array_equal(b.detach().numpy(), P0[0])
    sd = opt.state_dict()
    w2, b2 = param(w.detach().numpy().copy(), "w"), param(b.detach().numpy().copy(), "b")
    opt2 = msoptim.Adam([w2, b2], learning_rate=0.05)
    opt2.load_state_dict(sd)
    assert opt2.global_step == 1
    for g in GRADS:
        opt((tandem.tensor(g), tandem.tensor(g[0])))
        opt2((tandem.tensor(g), tandem.tensor(g[0])))
    np.testing.assert_array_equal(w.detach().numpy(), w2.detach().numpy())
    np.testing.assert_array_equal(b.detach().numpy(), b2.detach().numpy())


# --- convergence on a small two-layer regression -----------------------------------------------
def _problem():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 4))
    w1, w2 = rng.standard_normal((4, 8)) * 0.7, rng.standard_normal((8, 1)) * 0.7
    y = np.tanh(x @ w1 + 0.1) @ w2 - 0.2
    init = [rng.standard_normal((4, 8)) * 0.5, np.zeros(8), rng.standard_normal((8, 1)) * 0.5,
            np.zeros(1)]
    # float64 keeps these tiny matmuls on the single-threaded path (fast on a busy machine).
    return tandem.tensor(x), tandem.tensor(y), init


def _loss(x, y, params):
    w1, b1, w2, b2 = params
    pred = mint.matmul(mint.tanh(mint.matmul(x, w1) + b1), w2) + b2
    return ((pred - y) ** 2).mean()


CONVERGE = [
    (optim.SGD, dict(lr=0.1, momentum=0.9)),
    (optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True)),
    (optim.Adam, dict(lr=0.02)),
    (optim.AdamW, dict(lr=0.02, weight_decay=1e-4)),
    (optim.RMSprop, dict(lr=0.005)),
    (optim.Adagrad, dict(lr=0.1)),
    (optim.Adadelta, dict(lr=5.0)),
]


@pytest.mark.parametrize("cls,kw", CONVERGE, ids=[f"{c.__name__}-{i}" for i, (c, _) in
                                                 enumerate(CONVERGE)])
def test_training_converges(cls, kw):
    x, y, init = _problem()
    params = [tandem.tensor(a).requires_grad_() for a in init]
    opt = cls(params, **kw)
    first = float(_loss(x, y, params))
    for _ in range(150):
        opt.zero_grad()
        loss = _loss(x, y, params)
        loss.backward()
        opt.step()
    last = float(_loss(x, y, params))
    assert last < 0.05 * first, (first, last)


@pytest.mark.parametrize("make", [
    lambda ps: msoptim.SGD(ps, learning_rate=0.1, momentum=0.9),
    lambda ps: msoptim.Momentum(ps, learning_rate=0.1, momentum=0.9),
    lambda ps: msoptim.Adam(ps, learning_rate=0.02),
    lambda ps: msoptim.AdamWeightDecay(ps, learning_rate=0.02, weight_decay=1e-4),
], ids=["SGD", "Momentum", "Adam", "AdamWeightDecay"])
def test_mindspore_training_converges(make):
    x, y, init = _problem()
    params = [Parameter(tandem.tensor(a), name=f"p{i}")
              for i, a in enumerate(init)]
    opt = make(params)
    first = float(_loss(x, y, params))
    for _ in range(150):
        grads = autograd.grad(_loss(x, y, opt.parameters), opt.parameters)
        opt(grads)
    last = float(_loss(x, y, params))
    assert last < 0.05 * first, (first, last)


# --- errors -------------------------------------------------------------------------------
def test_errors_torch_face():
    p = leaf(P0)
    with pytest.raises(ValueError, match="learning rate"):
        optim.SGD([p], lr=-0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(TypeError, match="iterable"):
        optim.Adam(p)
    with pytest.raises(ValueError, match="nesterov"):
        optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="beta"):
        optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="epsilon"):
        optim.Adam([p], eps=-1.0)
    with pytest.raises(ValueError, match="more than once"):
        optim.SGD([p, p], lr=0.1)
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([p * 2], lr=0.1)
    with pytest.raises(TypeError, match="floating"):
        optim.SGD([tandem.tensor([1, 2])], lr=0.1)
    with pytest.raises(TypeError, match="Tensors"):
        optim.SGD([p, 3.0], lr=0.1)
    with pytest.raises(ValueError, match="'params'"):
        optim.SGD([{"lr": 0.1}])
    opt = optim.SGD([p], lr=0.1)
    p.grad = tandem.tensor(GRADS[0])
    opt.param_groups[0]["lr"] = -1.0
    with pytest.raises(ValueError, match="learning rate"):
        opt.step()
    np.testing.assert_array_equal(p.detach().numpy(), P0)
    with pytest.raises(ValueError, match="unknown option"):
        tandem._C.optim.create("SGD", [([p], {"lr": 0.1, "betas": 0.9})])
    with pytest.raises(ValueError, match="unknown optimizer"):
        tandem._C.optim.create("Lion", [])


def test_errors_mindspore_face():
    w, b = param(P0, "w"), param(P0[0], "b")
    with pytest.raises(ValueError, match="learning_rate"):
        msoptim.SGD([w], learning_rate=-0.1)
    with pytest.raises(ValueError, match="learning rate must be >= 0"):
        msoptim.SGD([w], learning_rate=[0.1, -0.1])
    with pytest.raises(ValueError, match="empty"):
        msoptim.Momentum([], learning_rate=0.1, momentum=0.9)
    with pytest.raises(ValueError, match="momentum"):
        msoptim.Momentum([w], learning_rate=0.1, momentum=-0.9)
    with pytest.raises(ValueError, match="loss_scale"):
        msoptim.Momentum([w], learning_rate=0.1, momentum=0.9, loss_scale=0.0)
    with pytest.raises(ValueError, match="beta1"):
        msoptim.Adam([w], beta1=1.0)
    opt = msoptim.Adam([w, b])
    with pytest.raises(ValueError, match="number of gradients"):
        opt((tandem.tensor(GRADS[0]),))
    with pytest.raises(ValueError, match="shape"):
        opt((tandem.tensor(GRADS[0]), tandem.tensor(GRADS[0])))
    np.testing.assert_array_equal(w.detach().numpy(), P0)  # nothing was half-applied
