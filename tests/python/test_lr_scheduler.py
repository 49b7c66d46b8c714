"""Learning-rate schedules: PyTorch-style schedulers (tandem.mint.optim.lr_scheduler) against
their closed-form formulas and hand-computed values, state_dict resume, and MindSpore's
dynamic_lr lists against the values MindSpore documents."""
import copy
import math

import pytest

from tandem.mint.optim import lr_scheduler as S
from tandem.nn import dynamic_lr as D


class Opt:
    """The minimal optimizer interface a scheduler needs."""

    def __init__(self, lrs=(0.05,), **defaults):
        self.defaults = dict(lr=lrs[0], **defaults)
        self.param_groups = [dict(self.defaults, lr=lr, params=[]) for lr in lrs]


def run(sched, opt, n):
    """lrs of every group at epochs 0..n-1 (epoch 0 is the constructor's)."""
    out = [[g["lr"] for g in opt.param_groups]]
    for _ in range(n - 1):
        sched.step()
        out.append([g["lr"] for g in opt.param_groups])
        assert sched.get_last_lr() == out[-1]
    return out


def close(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x == pytest.approx(y, rel=1e-12, abs=1e-15), (a, b)


def test_step_lr_hand_values():
    opt = Opt((0.05, 1.0))
    got = run(S.StepLR(opt, step_size=3, gamma=0.1), opt, 10)
    want = [0.05] * 3 + [0.005] * 3 + [0.0005] * 3 + [0.00005]
    close([g[0] for g in got], want)
    close([g[1] for g in got], [w * 20 for w in want])


def test_multistep_lr_repeated_milestone():
    opt = Opt()
    got = [g[0] for g in run(S.MultiStepLR(opt, milestones=[2, 5, 5], gamma=0.1), opt, 8)]
    close(got, [0.05, 0.05, 0.005, 0.005, 0.005, 0.00005, 0.00005, 0.00005])


def test_exponential_lr():
    opt = Opt((0.1,))
    got = [g[0] for g in run(S.ExponentialLR(opt, gamma=0.9), opt, 12)]
    close(got, [0.1 * 0.9 ** e for e in range(12)])


@pytest.mark.parametrize("eta_min", [0.0, 0.01])
def test_cosine_annealing_matches_closed_form_past_t_max(eta_min):
    opt = Opt((0.1, 0.2))
    T = 5
    got = run(S.CosineAnnealingLR(opt, T_max=T, eta_min=eta_min), opt, 3 * T + 2)
    for g, base in enumerate([0.1, 0.2]):
        want = [eta_min + (base - eta_min) * (1 + math.cos(math.pi * e / T)) / 2
                for e in range(3 * T + 2)]
        close([row[g] for row in got], want)
    assert got[T][0] == pytest.approx(eta_min, abs=1e-15)


def test_lambda_lr_per_group():
    opt = Opt((0.1, 1.0))
    sched = S.LambdaLR(opt, [lambda e: e // 3, lambda e: 0.95 ** e])
    got = run(sched, opt, 7)
    close([r[0] for r in got], [0.1 * (e // 3) for e in range(7)])
    close([r[1] for r in got], [0.95 ** e for e in range(7)])
    with pytest.raises(ValueError):
        S.LambdaLR(Opt((0.1, 1.0)), [lambda e: 1.0])


@pytest.mark.parametrize("start,end,total", [(0.25, 1.0, 4), (1.0, 0.1, 3), (0.5, 0.5, 2)])
def test_linear_lr_closed_form(start, end, total):
    opt = Opt((0.08,))
    got = [g[0] for g in run(S.LinearLR(opt, start, end, total), opt, total + 4)]
    close(got, [0.08 * (start + (end - start) * min(total, e) / total)
                for e in range(total + 4)])


def test_linear_lr_bad_factors():
    with pytest.raises(ValueError):
        S.LinearLR(Opt(), start_factor=0.0)
    with pytest.raises(ValueError):
        S.LinearLR(Opt(), start_factor=0.5, end_factor=1.5)


def _one_cycle_ref(step, max_lr, total, pct, div, final_div, strategy, three_phase):
    """The 1cycle rate written out from its definition."""
    init, low = max_lr / div, max_lr / div / final_div
    f = ((lambda a, b, p: b + (a - b) / 2 * (math.cos(math.pi * p) + 1)) if strategy == "cos"
         else (lambda a, b, p: a + (b - a) * p))
    up = pct * total - 1
    if three_phase:
        down = 2 * pct * total - 2
        if step <= up:
            return f(init, max_lr, step / up)
        if step <= down:
            return f(max_lr, init, (step - up) / (down - up))
        return f(init, low, (step - down) / (total - 1 - down))
    if step <= up:
        return f(init, max_lr, step / up)
    return f(max_lr, low, (step - up) / (total - 1 - up))


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("three_phase", [False, True])
def test_one_cycle(strategy, three_phase):
    opt = Opt((0.3,), momentum=0.9)
    sched = S.OneCycleLR(opt, max_lr=2.0, total_steps=20, pct_start=0.25,
                         anneal_strategy=strategy, three_phase=three_phase)
    got = [g[0] for g in run(sched, opt, 20)]
    close(got, [_one_cycle_ref(s, 2.0, 20, 0.25, 25.0, 1e4, strategy, three_phase)
                for s in range(20)])
    assert got[0] == pytest.approx(2.0 / 25)
    assert got[-1] == pytest.approx(2.0 / 25 / 1e4)
    assert max(got) == pytest.approx(2.0)


def test_one_cycle_hand_values():
    # total 10, pct 0.3: up over steps 0..2, down over 2..9 (cos).
    opt = Opt((0.1,), momentum=0.9)
    got = [g[0] for g in run(S.OneCycleLR(opt, max_lr=1.0, total_steps=10), opt, 10)]
    assert got[0] == pytest.approx(0.04)
    assert got[1] == pytest.approx(0.52)  # halfway up the cosine: (0.04 + 1) / 2
    assert got[2] == pytest.approx(1.0)
    assert got[9] == pytest.approx(4e-6)


def test_one_cycle_momentum_and_betas_cycle_inversely():
    opt = Opt((0.1,), momentum=0.9)
    sched = S.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.95)
    sched.step()
    sched.step()  # at the peak: momentum at base
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.85)
    opt = Opt((0.1,), betas=(0.9, 0.999))
    sched = S.OneCycleLR(opt, max_lr=1.0, epochs=2, steps_per_epoch=5)
    assert sched.total_steps == 10
    assert opt.param_groups[0]["betas"] == (0.95, 0.999)
    sched.step()
    sched.step()
    assert opt.param_groups[0]["betas"][0] == pytest.approx(0.85)
    assert opt.param_groups[0]["betas"][1] == 0.999


def test_one_cycle_errors():
    with pytest.raises(ValueError):
        S.OneCycleLR(Opt(momentum=0.9), max_lr=1.0)
    with pytest.raises(ValueError):
        S.OneCycleLR(Opt(momentum=0.9), max_lr=1.0, total_steps=0)
    with pytest.raises(ValueError):
        S.OneCycleLR(Opt(momentum=0.9), max_lr=1.0, total_steps=10, anneal_strategy="exp")
    with pytest.raises(ValueError):
        S.OneCycleLR(Opt(momentum=0.9), max_lr=1.0, total_steps=10, pct_start=1.5)
    with pytest.raises(ValueError):
        S.OneCycleLR(Opt(), max_lr=1.0, total_steps=10)  # no momentum to cycle
    with pytest.raises(ValueError):
        S.OneCycleLR(Opt(momentum=0.9), max_lr=[1.0, 2.0], total_steps=10)
    sched = S.OneCycleLR(Opt(), max_lr=1.0, total_steps=3, cycle_momentum=False)
    for _ in range(3):
        sched.step()
    with pytest.raises(ValueError, match="Tried to step"):
        sched.step()


def test_chained_schedulers_multiply():
    opt = Opt((1.0,))
    a = S.ExponentialLR(opt, gamma=0.9)
    b = S.StepLR(opt, step_size=2, gamma=0.5)
    got = [opt.param_groups[0]["lr"]]
    for _ in range(6):
        a.step()
        b.step()
        got.append(opt.param_groups[0]["lr"])
    close(got, [0.9 ** e * 0.5 ** (e // 2) for e in range(7)])


@pytest.mark.parametrize("make", [
    lambda o: S.StepLR(o, step_size=2, gamma=0.5),
    lambda o: S.MultiStepLR(o, milestones=[3, 6], gamma=0.2),
    lambda o: S.ExponentialLR(o, gamma=0.8),
    lambda o: S.CosineAnnealingLR(o, T_max=4, eta_min=0.001),
    lambda o: S.LinearLR(o, start_factor=0.2, total_iters=5),
    lambda o: S.LambdaLR(o, lambda e: 1.0 / (1 + e)),
    lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=12),
], ids=["step", "multistep", "exp", "cos", "linear", "lambda", "onecycle"])
def test_state_dict_resume(make):
    opt = Opt((0.1, 0.3), momentum=0.9)
    ref = make(opt)
    for _ in range(4):
        ref.step()
    saved_groups = copy.deepcopy(opt.param_groups)
    saved = copy.deepcopy(ref.state_dict())
    assert "optimizer" not in saved
    want = run(ref, opt, 7)

    opt2 = Opt((0.1, 0.3), momentum=0.9)
    sched2 = make(opt2)
    opt2.param_groups = saved_groups  # as optimizer.load_state_dict would
    sched2.optimizer = opt2
    sched2.load_state_dict(saved)
    assert sched2.last_epoch == 4
    got = run(sched2, opt2, 7)
    for w, g in zip(want, got):
        close(g, w)


def test_resume_needs_initial_lr():
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(Opt(), step_size=2, last_epoch=3)
    opt = Opt((0.1,))
    opt.param_groups[0]["initial_lr"] = 0.1
    sched = S.StepLR(opt, step_size=2, last_epoch=3)  # resumes at epoch 4
    assert sched.last_epoch == 4
    assert sched.base_lrs == [0.1]


def test_step_with_epoch_uses_closed_form():
    opt = Opt((0.1,))
    sched = S.StepLR(opt, step_size=3, gamma=0.1)
    with pytest.warns(UserWarning):
        sched.step(7)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.1 ** 2)
    sched = S.CosineAnnealingLR(Opt((0.1,)), T_max=10)
    with pytest.warns(UserWarning):
        sched.step(5)
    assert sched.get_last_lr()[0] == pytest.approx(0.05)


def test_scheduler_rejects_non_optimizer():
    with pytest.raises(TypeError):
        S.StepLR(object(), step_size=1)


# --- MindSpore dynamic_lr (values from MindSpore's documentation examples) -------------------

def test_piecewise_constant_lr():
    assert D.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]) == \
        [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01]
    with pytest.raises(ValueError):
        D.piecewise_constant_lr([2, 5], [0.1])
    with pytest.raises(ValueError):
        D.piecewise_constant_lr([5, 2], [0.1, 0.2])
    with pytest.raises(TypeError):
        D.piecewise_constant_lr([2, 5], [0.1, 1])


def test_exponential_decay_lr():
    assert D.exponential_decay_lr(0.1, 0.9, 6, 2, 1) == \
        [0.1, 0.1, 0.09000000000000001, 0.09000000000000001, 0.08100000000000002,
         0.08100000000000002]
    got = D.exponential_decay_lr(0.1, 0.5, 8, 1, 3, is_stair=True)
    assert got == [0.1 * 0.5 ** (i // 3) for i in range(8)]
    got = D.exponential_decay_lr(0.1, 0.5, 4, 1, 3)
    assert got == pytest.approx([0.1 * 0.5 ** (i / 3) for i in range(4)])


def test_natural_exp_and_inverse_decay_lr():
    assert D.natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True) == pytest.approx(
        [0.1, 0.1, 0.1, 0.1, 0.016529888822158657, 0.016529888822158657])
    assert D.inverse_decay_lr(0.1, 0.5, 6, 1, 1, True) == pytest.approx(
        [0.1, 0.06666666666666667, 0.05, 0.04, 0.03333333333333333, 0.028571428571428574])


def test_cosine_decay_lr():
    assert D.cosine_decay_lr(0.01, 0.1, 6, 2, 2) == \
        [0.1, 0.1, 0.05500000000000001, 0.05500000000000001, 0.01, 0.01]
    with pytest.raises(ValueError):
        D.cosine_decay_lr(0.1, 0.1, 6, 2, 2)
    with pytest.raises(TypeError):
        D.cosine_decay_lr(0, 0.1, 6, 2, 2)


def test_polynomial_decay_lr():
    assert D.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5) == \
        [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01]
    # update_decay_epoch: the decay horizon grows to the next multiple of decay_epoch.
    got = D.polynomial_decay_lr(0.1, 0.01, 8, 1, 2, 1.0, update_decay_epoch=True)
    want = []
    for e in range(8):
        horizon = 2 * max(math.ceil(e / 2), 1)
        want.append(0.09 * (1 - e / horizon) + 0.01)
    assert got == pytest.approx(want)
    with pytest.raises(ValueError):
        D.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.0)


def test_warmup_lr():
    assert D.warmup_lr(0.1, 6, 2, 2) == [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]
    with pytest.raises(ValueError):
        D.warmup_lr(0.1, 0, 2, 2)
    with pytest.raises(TypeError):
        D.warmup_lr(0.1, 6.0, 2, 2)


def test_drives_a_real_optimizer():
    import numpy as np
    from tandem.mint import optim
    from tandem import Parameter
    p = Parameter(np.ones(3, np.float32))
    opt = optim.SGD([p], lr=0.5)
    sched = S.StepLR(opt, step_size=1, gamma=0.5)
    for lr in [0.5, 0.25, 0.125]:
        (p * p).sum().backward()  # grad = 2 p
        before = p.detach().numpy().copy()
        opt.step()
        opt.zero_grad()
        np.testing.assert_allclose(p.detach().numpy(), before - lr * 2 * before, rtol=1e-6)
        sched.step()
