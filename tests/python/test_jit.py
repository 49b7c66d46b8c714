"""Graph mode (jit / GRAPH_MODE): the seed's examples, cache and retracing, the passes that
exist (CSE, dead-code elimination), errors, and eager-vs-graph parity of a training step."""
import numpy as np
import pytest

import tandem
from tandem import context, jit, mint
from tandem.mint import nn


def test_seed_compute_both_modes():
    def compute(x, y):
        z = x + y
        w = z * 2
        return w

    x, y = mint.Tensor([1]), mint.Tensor([2])
    eager = compute(x, y)
    compiled = jit(compute)
    assert compiled(x, y).tolist() == eager.tolist() == [6]
    assert compiled(mint.Tensor([5]), y).tolist() == [14]  # same graph, new values


def test_seed_add_func_decorator():
    @jit
    def add_func(a, b):
        return a + b

    assert add_func(mint.Tensor([10]), mint.Tensor([20])).tolist() == [30]


def test_later_calls_do_not_run_python():
    calls = []

    @jit
    def f(x):
        calls.append(1)
        return x * 3

    x = mint.randn(5)
    for _ in range(3):
        np.testing.assert_allclose(f(x).detach().numpy(), 3 * x.detach().numpy(), rtol=1e-6)
    assert len(calls) == 1
    f(mint.randn(6))  # new shape: retrace
    assert len(calls) == 2


def test_cse_and_dce_reduce_kernels():
    @jit
    def g(x):
        a = mint.exp(x) * 2
        b = mint.exp(x) * 2
        _unused = x * 100
        return a + b

    x = mint.randn(4)
    text = g.explain(x)
    assert "traced graph (6 kernels)" in text
    optimized = text.split("optimized graph")[1]
    assert optimized.count("exp") == 1  # CSE merged the two exp(x)
    kernels = int(optimized.split("(")[1].split(" kernels")[0])
    assert kernels <= 2  # DCE dropped x * 100; the muls and the add fuse
    np.testing.assert_allclose(g(x).detach().numpy(), 4 * np.exp(x.detach().numpy()), rtol=1e-6)


def test_outputs_keep_structure_and_static_args():
    @jit(static_argnums=1)
    def f(x, k):
        return {"y": x * k, "pair": (x + k, k)}

    x = mint.ones(3)
    out = f(x, 2)
    assert out["pair"][1] == 2
    assert out["y"].tolist() == [2.0, 2.0, 2.0]
    assert f(x, 5)["y"].tolist() == [5.0, 5.0, 5.0]


def test_reading_a_value_inside_jit_specializes_on_it():
    def branch(x):
        if x.sum() > 0:
            return x
        return -x

    f = jit(branch)
    for v in (mint.randn(3).abs(), -mint.randn(3).abs(), mint.ones(3)):
        np.testing.assert_array_equal(f(v).detach().numpy(), branch(v).detach().numpy())
    assert len(f._cache) == 2  # one path per branch


def test_wrong_argument_dtype_retraces_and_wrong_count_errors():
    @jit
    def f(x, y):
        return x + y

    assert f(mint.ones(2), mint.ones(2)).tolist() == [2.0, 2.0]
    assert f(mint.ones(2, dtype=tandem.float64), mint.ones(2)).dtype == tandem.float64
    with pytest.raises(TypeError):
        f(mint.ones(2))


def test_random_ops_draw_fresh_numbers_each_call():
    @jit
    def noise(x):
        return x + mint.randn(4)

    x = mint.zeros(4)
    a, b = noise(x), noise(x)
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())


def test_captured_parameters_are_read_by_reference():
    w = mint.ones(3)

    @jit
    def f(x):
        return x * w

    x = mint.ones(3)
    assert f(x).tolist() == [1.0, 1.0, 1.0]
    w.fill_(4.0)
    assert f(x).tolist() == [4.0, 4.0, 4.0]


def _train(compiled: bool, steps: int = 20):
    tandem.manual_seed(0)
    X = mint.randn(64, 4)
    Y = (X @ mint.tensor([[1.0], [-2.0], [0.5], [3.0]])).tanh()
    w1 = mint.randn(4, 8) * 0.5
    w2 = mint.randn(8, 1) * 0.5

    def loss_fn(a, b, X, Y):
        return ((mint.tanh(X @ a) @ b - Y) ** 2).mean()

    grad_fn = tandem.value_and_grad(loss_fn, grad_position=(0, 1))

    def step(X, Y):
        loss, (g1, g2) = grad_fn(w1, w2, X, Y)
        with tandem.no_grad():
            w1.sub_(g1 * 0.5)
            w2.sub_(g2 * 0.5)
        return loss

    if compiled:
        step = jit(step)
    losses = [float(step(X, Y)) for _ in range(steps)]
    return losses, w1.detach().numpy().copy()


def test_training_step_matches_eager():
    eager_losses, eager_w = _train(False)
    graph_losses, graph_w = _train(True)
    assert eager_losses[-1] < eager_losses[0] * 0.5
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(graph_w, eager_w, rtol=1e-5, atol=1e-6)


def test_graph_mode_context_compiles_cells():
    net = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    x = mint.randn(5, 4)
    with tandem.no_grad():
        eager = net(x)
        context.set_context(mode=context.GRAPH_MODE)
        try:
            graph = net(x)
            graph2 = net(x)
        finally:
            context.set_context(mode=context.PYNATIVE_MODE)
    np.testing.assert_allclose(graph.detach().numpy(), eager.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(graph2.detach().numpy(), eager.detach().numpy(), rtol=1e-6)


def test_grad_mode_with_parameters_falls_back_to_eager_for_backward():
    lin = nn.Linear(3, 1)
    f = jit(lambda x: lin(x).sum())
    f(mint.randn(2, 3)).backward()  # traced once, then run eagerly so the tape exists
    assert lin.weight.grad is not None


def test_in_place_writes_through_views_inside_jit():
    """Writes through views become view_assign nodes on the base: slices, nested views,
    in-place ops on a view, and views of captured tensors (written back after the call)."""
    state = mint.zeros(4, 3)

    def f(x):
        y = x * 1
        y[0] = 5.0
        y[1:3] += x[1:3] * 2
        y.t()[2, 1:] = -1.0     # a view of a view: the last column, rows 1.. of y
        y[3].mul_(10)
        state[1] = y[3]         # through a view of a captured tensor
        return y

    x = mint.arange(12.0).reshape(4, 3)
    want = f(x)
    want_state = state.clone()
    state.zero_()
    g = jit(f)
    got = g(x)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    np.testing.assert_array_equal(state.detach().numpy(), want_state.detach().numpy())
    got2 = g(x + 1)  # a compiled call
    np.testing.assert_array_equal(got2.detach().numpy(), f(x + 1).detach().numpy())


def test_views_see_writes_made_through_their_base_or_other_views():
    def f(x):
        y = x * 1
        w = y[0:2]          # made before the writes below
        y[1] = 7.0          # through another view
        y.add_(1)           # in place on the base
        return w * 1, y

    x = mint.arange(6.0).reshape(3, 2)
    want = f(x)
    got = jit(f)(x)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_x_plus_x_plus_x_becomes_3x():
    @jit
    def f(x):
        return x + x + x

    x = mint.randn(3000)
    text = f.explain(x)
    assert "traced graph (2 kernels)" in text
    optimized = text.split("optimized graph")[1]
    assert "(1 kernels)" in optimized and "= mul(%0" in optimized  # x + x + x -> x * 3
    np.testing.assert_allclose(f(x).detach().numpy(), 3 * x.detach().numpy(), rtol=1e-6)


def test_explain_reports_kernels_passes_bytes_and_peak():
    # Eager runs two kernels, reads x three times (once per add input, x + x once) and keeps
    # x + x alive next to y; compiled reads x once and writes y once.
    f = jit(lambda x: x + x + x)
    text = f.explain(mint.randn(1_000_000))  # 4 MB
    assert "eager:    2 kernels, 5 array passes, 20.0 MB moved, peak 8.0 MB" in text
    assert "compiled: 1 kernel, 2 array passes, 8.0 MB moved, peak 4.0 MB" in text
    # A view costs nothing and keeps its base alive: exp(x) is viewed, then summed.
    g = jit(lambda x: mint.exp(x).reshape(1000, 1000).sum(0))
    assert "compiled: 2 kernels, 4 array passes, 12.0 MB moved, peak 4.0 MB" in g.explain(
        mint.randn(1_000_000))


def test_simplification_rules():
    x = mint.randn(10)
    g = jit(lambda x: -(-(x * 1.0 + 0)) * 2 * 3)
    assert "(1 kernels)" in g.explain(x).split("optimized graph")[1]
    np.testing.assert_allclose(g(x).detach().numpy(), 6 * x.detach().numpy(), rtol=1e-6)
    h = jit(lambda x: x.reshape(2, 5).reshape(5, 2) + mint.ones(1) * 2)  # folds ones * 2
    text = h.explain(x).split("optimized graph")[1]
    assert "full" not in text
    np.testing.assert_allclose(h(x).detach().numpy(), x.detach().numpy().reshape(5, 2) + 2, rtol=1e-6)


def test_unsimplifiable_chain_is_one_fused_kernel():
    @jit
    def f(x):
        return mint.tanh(x) * x + mint.sigmoid(x)

    x = mint.randn(3000)
    optimized = f.explain(x).split("optimized graph")[1]
    assert "(1 kernels)" in optimized and "fused_elementwise" in optimized
    xn = x.detach().numpy()
    np.testing.assert_allclose(f(x).detach().numpy(), np.tanh(xn) * xn + 1 / (1 + np.exp(-xn)), rtol=1e-5)


@pytest.mark.parametrize("dtype", [tandem.float32, tandem.float64])
def test_fused_chain_with_broadcast_matches_eager(dtype):
    def f(x, b):
        return mint.tanh(x * 0.5 + b) * mint.sigmoid(x) - mint.exp(-x * x)

    x = mint.randn(37, 129, dtype=dtype)
    b = mint.randn(129, dtype=dtype)
    eager = f(x, b)
    compiled = jit(f)
    assert "fused_elementwise" in compiled.explain(x, b)
    np.testing.assert_allclose(compiled(x, b).detach().numpy(), eager.detach().numpy(), rtol=1e-6, atol=1e-7)
    xt = mint.randn(129, 37, dtype=dtype).t()  # non-contiguous input
    np.testing.assert_allclose(compiled(xt, b).detach().numpy(), f(xt, b).detach().numpy(), rtol=1e-6, atol=1e-7)


def test_lenet_training_step_graph_matches_eager():
    """The demo's two paths: eager loss.backward() + mint.optim vs one compiled step with
    value_and_grad and MindSpore's optimizer(grads)."""
    from tandem import nn as ms_nn

    def lenet():
        return nn.Sequential(
            nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2, 2),
            nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(), nn.AvgPool2d(2, 2), nn.Flatten(),
            nn.Linear(400, 120), nn.Sigmoid(), nn.Linear(120, 84), nn.Sigmoid(),
            nn.Linear(84, 10))

    tandem.manual_seed(0)
    X, y = mint.rand(32, 1, 28, 28), mint.randint(0, 10, (32,))
    loss_fn = nn.CrossEntropyLoss()
    tandem.manual_seed(1)
    net = lenet()
    opt = mint.optim.SGD(net.parameters(), lr=0.5)
    eager = []
    for _ in range(3):
        loss = loss_fn(net(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        eager.append(float(loss))
    tandem.manual_seed(1)
    net2 = lenet()
    opt2 = ms_nn.SGD(net2.trainable_params(), learning_rate=0.5)
    grad_fn = tandem.value_and_grad(lambda X, y: loss_fn(net2(X), y), None, opt2.parameters)

    traces = []

    @jit
    def step(X, y):
        traces.append(1)
        loss, grads = grad_fn(X, y)
        opt2(grads)
        return loss

    graph = [float(step(X, y)) for _ in range(3)]
    assert len(traces) == 1  # later calls ran the compiled graph, not Python
    # every SGD update runs right after its gradient, written into its parameter (10), and
    # the optimizer's global step counter is advanced in place (1)
    assert step._entries()[0].exe.num_inplace_writebacks == 11
    assert opt2.global_step == 3
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    for p, q in zip(net.parameters(), net2.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_tensor_from_host_data_inside_jit_is_a_constant():
    # Regression: the host-to-tensor copy used to be recorded instead of run, so the new
    # tensor held uninitialised bytes at trace time (repeat_interleave read them as sizes).
    @tandem.jit
    def f(a):
        r = tandem.tensor(np.asarray([1, 0, 3], dtype=np.int64))
        assert r.detach().numpy().tolist() == [1, 0, 3]
        return tandem.mint.repeat_interleave(a, r, dim=0) + tandem.tensor([1.0, 2.0])

    a = tandem.tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
    want = np.repeat(a.detach().numpy(), [1, 0, 3], axis=0) + np.array([1.0, 2.0], np.float32)
    for _ in range(2):  # traced call, then the cached graph
        np.testing.assert_allclose(f(a).detach().numpy(), want)


def _train_ms_style(build, compiled: bool, steps: int = 4, train: bool = True,
                    make_opt=None):
    """value_and_grad + optimizer(grads) with eager dispatch or one compiled step; returns
    the losses, the parameters and buffers after training, and how often Python ran."""
    from tandem import nn as ms_nn
    tandem.manual_seed(0)
    X, y = mint.randn(16, 1, 12, 12), mint.randint(0, 4, (16,))
    tandem.manual_seed(1)
    net = build()
    net.train(train)
    loss_fn = nn.CrossEntropyLoss()
    opt = (make_opt or (lambda ps: ms_nn.Momentum(ps, learning_rate=0.1, momentum=0.9)))(
        net.trainable_params())
    grad_fn = tandem.value_and_grad(lambda X, y: loss_fn(net(X), y), None, opt.parameters)
    runs = []

    def step(X, y):
        runs.append(1)
        loss, grads = grad_fn(X, y)
        opt(grads)
        return loss

    if compiled:
        step = jit(step)
    tandem.manual_seed(2)  # the dropout masks' stream
    losses = [float(step(X, y)) for _ in range(steps)]
    state = {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}
    for i, (bufs, scalars) in enumerate(opt._impl.export_state()):
        state.update({f"opt.{i}.{k}": v.detach().numpy().copy() for k, v in bufs.items()})
        state.update({f"opt.{i}.{k}": np.array(v) for k, v in scalars.items()})
    return losses, state, len(runs)


@pytest.mark.parametrize("name", ["mlp", "batchnorm", "dropout"])
def test_models_train_the_same_in_graph_mode(name):
    """MLP, BatchNorm (running statistics written back) and Dropout (fresh masks per call
    from the seeded generator) models: eager and compiled training agree step by step."""
    def build():
        if name == "mlp":
            return nn.Sequential(nn.Flatten(), nn.Linear(144, 32), nn.ReLU(), nn.Linear(32, 4))
        if name == "batchnorm":
            return nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),
                                 nn.Flatten(), nn.Linear(400, 4))
        return nn.Sequential(nn.Flatten(), nn.Linear(144, 64), nn.ReLU(), nn.Dropout(0.5),
                             nn.Linear(64, 4))

    eager_losses, eager_state, _ = _train_ms_style(build, False)
    graph_losses, graph_state, runs = _train_ms_style(build, True)
    assert runs == 1
    assert eager_losses[-1] < eager_losses[0]
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    assert eager_state.keys() == graph_state.keys()
    for k in eager_state:
        np.testing.assert_allclose(graph_state[k], eager_state[k], rtol=1e-5, atol=1e-6,
                                   err_msg=k)
    if name == "batchnorm":
        assert not np.allclose(eager_state["1.running_mean"], 0)  # the statistics moved


def test_dropout_masks_differ_between_compiled_calls():
    drop = nn.Dropout(0.5)
    f = jit(lambda x: drop(x))
    x = mint.ones(4096)
    a, b = f(x).detach().numpy(), f(x).detach().numpy()
    assert 0.4 < (a == 0).mean() < 0.6 and not np.array_equal(a, b)


@pytest.mark.parametrize("opt", ["SGD", "SGD-momentum", "Adam", "AdamWeightDecay", "Momentum-nesterov"])
def test_optimizer_state_and_step_count_live_in_the_graph(opt):
    """Buffers made on the first (traced) step are real state, and Adam's bias correction
    follows the step count on every compiled call instead of the traced step's number."""
    from tandem import nn as ms_nn
    make = {
        "SGD": lambda ps: ms_nn.SGD(ps, learning_rate=0.1),
        "SGD-momentum": lambda ps: ms_nn.SGD(ps, learning_rate=0.1, momentum=0.9),
        "Adam": lambda ps: ms_nn.Adam(ps, learning_rate=0.01),
        "AdamWeightDecay": lambda ps: ms_nn.AdamWeightDecay(ps, learning_rate=0.01,
                                                            weight_decay=0.1),
        "Momentum-nesterov": lambda ps: ms_nn.Momentum(ps, 0.1, 0.9, use_nesterov=True),
    }[opt]

    def build():
        return nn.Sequential(nn.Flatten(), nn.Linear(144, 16), nn.Tanh(), nn.Linear(16, 4))

    eager_losses, eager_state, _ = _train_ms_style(build, False, steps=6, make_opt=make)
    graph_losses, graph_state, runs = _train_ms_style(build, True, steps=6, make_opt=make)
    assert runs == 1
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    assert eager_state.keys() == graph_state.keys()
    for k in eager_state:
        np.testing.assert_allclose(graph_state[k], eager_state[k], rtol=1e-5, atol=1e-6,
                                   err_msg=k)


@pytest.mark.parametrize("kind", ["list", "schedule", "set_data", "groups"])
def test_dynamic_learning_rates_inside_jit_follow_the_step(kind):
    """MindSpore optimizers read their rate and global step as tensors when the update runs:
    a compiled step traced once follows a per-step rate list, a schedule computed from the
    step tensor, an assignment to the rate Parameter and per-group rates like eager steps."""
    from tandem import nn as ms_nn

    def make():
        tandem.manual_seed(0)
        net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
        lr = {"list": [0.1, 0.05, 0.02], "schedule": lambda step: 0.1 / (1.0 + step),
              "set_data": 0.1, "groups": 0.1}[kind]
        params = net.trainable_params()
        if kind == "groups":
            params = [{"params": params[:2], "lr": [0.2, 0.1]}, {"params": params[2:]}]
        opt = ms_nn.Momentum(params, learning_rate=lr, momentum=0.9)
        grad_fn = tandem.value_and_grad(lambda x, y: ((net(x) - y) ** 2).mean(), None,
                                        opt.parameters)
        return net, opt, grad_fn

    X, Y = mint.randn(8, 3), mint.randn(8, 2)
    traces = []

    def train(compiled):
        net, opt, grad_fn = make()

        def step(x, y):
            traces.append(1)
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss
        run = jit(step) if compiled else step
        losses = []
        for i in range(5):
            if kind == "set_data" and i == 3:
                opt.learning_rate.set_data(mint.tensor(0.01))
            losses.append(float(run(X, Y)))
        return net, opt, losses

    net_e, opt_e, eager = train(False)
    traces.clear()
    net_g, opt_g, graph = train(True)
    assert len(traces) == 1  # traced once: the rate changes are read, not retraced
    assert opt_g.global_step == opt_e.global_step == 5
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    assert eager[4] != eager[3]  # the rate really moves the parameters
    for p, q in zip(net_e.trainable_params(), net_g.trainable_params()):
        np.testing.assert_allclose(q.detach().numpy(), p.detach().numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.asarray(opt_g.get_lr(), dtype=np.float64).ravel()[0],
                               np.asarray(opt_e.get_lr(), dtype=np.float64).ravel()[0])


@pytest.mark.parametrize("schedule,err,match", [
    # int(step) itself is fine inside jit now (guarded), but a number rate would be frozen
    (lambda step: 0.1 * 0.5 ** int(step), TypeError, "schedule must return a Tensor"),
    (lambda step: 0.1, TypeError, "schedule must return a Tensor"),
])
def test_a_schedule_computing_python_numbers_is_reported_inside_jit(schedule, err, match):
    from tandem import nn as ms_nn
    net = nn.Linear(3, 1)
    opt = ms_nn.SGD(net.trainable_params(), learning_rate=schedule)
    grad_fn = tandem.value_and_grad(lambda x: net(x).sum(), None, opt.parameters)

    @jit
    def step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss

    with pytest.raises(err, match=match):
        step(mint.ones(2, 3))
    opt(grad_fn(mint.ones(2, 3))[1])  # eagerly, a number is fine
    assert opt.global_step == 1


def test_reading_captured_state_as_a_python_value_inside_jit_is_guarded():
    """A captured tensor's value read as a Python number specializes the graph on it behind
    a guard (also after an in-place write in the same trace, where it reads the new value),
    so later calls see its current value; tensor ops read it by reference."""
    s = mint.zeros(())

    def bump(x):
        s.add_(1)
        return x * float(s)

    f = jit(bump)
    assert [f(mint.ones(2)).tolist() for _ in range(3)] == [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]
    assert float(s) == 3.0
    c = mint.tensor(3.0)
    for read in (lambda: c.item(), lambda: c.detach().numpy(), lambda: bool(c), lambda: c.tolist(),
                 lambda: repr(c)):
        @jit
        def g(x, read=read):
            read()
            return x * c
        assert g(mint.ones(2)).tolist() == [3.0, 3.0]

    @jit
    def uses_value(x):
        return x * float(c)
    assert uses_value(mint.ones(2)).tolist() == [3.0, 3.0]
    c.fill_(5.0)
    assert uses_value(mint.ones(2)).tolist() == [5.0, 5.0]  # the guard saw the change
    c.fill_(3.0)


def test_python_numbers_are_program_constants_not_inputs():
    """tanh-GELU reads x and four Python numbers: one fused kernel with one input,
    bit-identical to eager (the constants are converted to float32 as eager does)."""
    def gelu(x):
        return 0.5 * x * (1 + mint.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))

    g = jit(gelu)
    x = mint.randn(10000)
    report = g.explain(x)
    optimized = report.split("optimized graph")[1].split("eager:")[0]
    assert optimized.count("fused_elementwise(%0)") == 1 and "(1 kernels)" in optimized
    np.testing.assert_array_equal(g(x).detach().numpy(), gelu(x).detach().numpy())


def test_train_eval_switch_recompiles():
    """The cache is keyed by the train/eval flags the traced code read: dropout and batch
    norm behave per mode, and switching back reuses the first graph."""
    net = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Dropout(0.5))
    traces = []

    @jit
    def f(x):
        traces.append(1)
        return net(x)

    x = mint.randn(16, 8)
    with tandem.no_grad():
        a = f(x)
        net.eval()
        b, want = f(x), net(x)
        net.train()
        f(x)
    assert len(traces) == 2
    np.testing.assert_allclose(b.detach().numpy(), want.detach().numpy(), rtol=1e-6)
    assert (a.detach().numpy() == 0).any() and not (b.detach().numpy() == 0).any()


@pytest.mark.parametrize("zero_first", [True, False])
def test_pytorch_style_training_step_compiles(zero_first):
    """opt.zero_grad(); loss.backward(); opt.step() inside @jit: the .grad values become
    graph outputs set on the parameters after each call; a schedule changing the learning
    rate recompiles (the rate is a constant of the graph)."""
    def run(compiled):
        tandem.manual_seed(0)
        X, y = mint.randn(32, 10), mint.randint(0, 3, (32,))
        tandem.manual_seed(1)
        net = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 3))
        opt = mint.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        sched = mint.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
        loss_fn = nn.CrossEntropyLoss()
        traces = []

        def step(X, y):
            traces.append(1)
            if zero_first:
                opt.zero_grad()
            loss = loss_fn(net(X), y)
            loss.backward()
            opt.step()
            if not zero_first:
                opt.zero_grad()
            return loss

        f = jit(step) if compiled else step
        losses = []
        for _ in range(7):
            losses.append(float(f(X, y)))
            sched.step()
        grads = [None if p.grad is None else p.grad.detach().numpy().copy() for p in net.parameters()]
        return losses, [p.detach().numpy().copy() for p in net.parameters()], grads, len(traces)

    e_loss, e_params, e_grads, _ = run(False)
    g_loss, g_params, g_grads, traces = run(True)
    assert e_loss[-1] < e_loss[0]
    np.testing.assert_allclose(g_loss, e_loss, rtol=1e-6)
    for a, b in zip(g_params, e_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(g_grads, e_grads):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # lr changes after steps 3 and 6; zero_grad first also retraces once when .grad
    # goes from None to set
    assert traces == (4 if zero_first else 3)


@pytest.mark.parametrize("case", ["mse", "square", "broadcast", "float64"])
def test_reductions_fuse_with_their_elementwise_producers(case):
    """sum/mean over everything of an elementwise result is one fused_sum kernel that never
    stores the elementwise values (partial sums in float64)."""
    dt = tandem.float64 if case == "float64" else tandem.float32
    a, b = mint.randn(1000, 37, dtype=dt), mint.randn(1000, 37, dtype=dt)
    fns = {
        "mse": lambda a, b: ((a - b) ** 2).mean(),
        "square": lambda a, b: (a * a).sum(),
        "broadcast": lambda a, b: (mint.tanh(a[:, :1]) * b[:1, :]).mean(),
        "float64": lambda a, b: (a * b + 1.0).sum(),
    }
    f = fns[case]
    g = jit(f)
    optimized = g.explain(a, b).split("optimized graph")[1].split("eager:")[0]
    assert "fused_sum" in optimized and "= sum(" not in optimized and "= mean(" not in optimized
    tol = 1e-12 if dt == tandem.float64 else 1e-5
    np.testing.assert_allclose(g(a, b).detach().numpy(), f(a, b).detach().numpy(), rtol=tol)


def test_a_failed_trace_leaves_no_symbolic_grads():
    lin = nn.Linear(3, 1)
    opt = mint.optim.SGD(lin.parameters(), lr=0.1)

    @jit
    def step(x):
        opt.zero_grad()
        loss = lin(x).sum()
        loss.backward()
        raise ValueError("the traced code fails after backward()")

    with pytest.raises(ValueError, match="fails after backward"):
        step(mint.ones(2, 3))
    assert lin.weight.grad is None  # as before the call, not a symbolic leftover
    lin(mint.ones(2, 3)).sum().backward()  # eager autograd still works
    assert lin.weight.grad is not None


def test_a_training_step_with_a_data_dependent_update_matches_eager():
    """backward() then `if loss > 0: opt.step()`: the step compiles one path per branch, and
    the .grad and parameter updates happen exactly as eagerly (nothing is written twice or
    on the branch not taken)."""
    def make():
        tandem.manual_seed(7)
        lin = nn.Linear(3, 1)
        return lin, mint.optim.SGD(lin.parameters(), lr=0.1)

    def body(lin, opt, x):
        opt.zero_grad()
        loss = lin(x).sum()
        loss.backward()
        if loss > 0:
            opt.step()
        return loss

    lin_e, opt_e = make()
    lin_j, opt_j = make()
    step = jit(lambda x: body(lin_j, opt_j, x))
    xs = [mint.ones(2, 3), -mint.ones(2, 3), mint.ones(2, 3) * 0.5, -mint.ones(2, 3)]
    for x in xs:
        np.testing.assert_allclose(step(x).detach().numpy(), body(lin_e, opt_e, x).detach().numpy(), rtol=1e-6)
        np.testing.assert_allclose(lin_j.weight.detach().numpy(), lin_e.weight.detach().numpy(), rtol=1e-6)
        np.testing.assert_allclose(lin_j.weight.grad.detach().numpy(), lin_e.weight.grad.detach().numpy(),
                                   rtol=1e-6)


def test_repeat_calls_take_the_cpp_fast_path_with_the_same_results():
    """All-tensor calls of an unguarded graph returning a tensor or a flat tuple/list run
    from C++ (the JitCache's direct call); everything else keeps the Python path, with the same
    results."""
    traces = []

    @jit
    def f(a, b):
        traces.append(1)
        return a * b + 1.0, [a - b]  # nested: Python path

    @jit
    def g(a, b):
        traces.append(1)
        return (a * b + 1.0, a - b)

    a, b = mint.randn(3, 4), mint.randn(3, 4)
    for _ in range(3):
        (x, [y]), (u, v) = f(a, b), g(a, b)
        np.testing.assert_array_equal(x.detach().numpy(), u.detach().numpy())
        np.testing.assert_array_equal(y.detach().numpy(), v.detach().numpy())
    assert len(traces) == 2 and f._cache.num_direct() == 0 and g._cache.num_direct() == 1
    g(mint.randn(2, 4), b[:2])  # a new signature: traced, then served from C++ too
    out, _ = g(a.requires_grad_(), b)  # requires_grad is part of the key: traced, and
    assert len(traces) == 5            # then run eagerly, so the caller can differentiate
    assert out.grad_fn is not None
    with tandem.no_grad():
        g(a, b)                 # so is grad mode
    assert len(traces) == 6
    assert isinstance(g(a.detach(), b), tuple)

    net = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))

    @jit
    def h(x):
        return net(x)
    x = mint.ones(8, 4)
    h(x)
    assert h._cache.num_direct() == 0  # reads net.training: guarded, so never served blindly
    net.eval()
    np.testing.assert_allclose(h(x).detach().numpy(), net(x).detach().numpy())


def test_concurrent_calls_of_one_compiled_function():
    """The C++ fast path releases the GIL while the graph runs: threads calling the same
    compiled function at once each get their own results."""
    import threading

    @jit
    def f(a, b):
        return a * b + a

    f(mint.ones(64), mint.ones(64))
    errors = []

    def worker(k):
        a, b = mint.full((64,), float(k)), mint.full((64,), 2.0)
        for _ in range(300):
            if f(a, b).detach().numpy()[0] != 3.0 * k:
                errors.append(k)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_constant_chains_fold_only_where_bit_exact():
    """mul(mul(x, c1), c2) -> mul(x, c1 * c2) and x * c + x -> x * (c + 1) reassociate: done
    only where a factor is a power of two (so the rewrite rounds exactly as eager does)."""
    x = mint.tensor([0.0, 2.5, -1.3, 3.7e-3, 1e30])
    for f, folds in ((lambda x: x * 1.719529628753662 * 0.09375, False),
                     (lambda x: x * 0.7 + x, False),
                     (lambda x: x * 0.5 * 3.3, True),
                     (lambda x: x + x + x, True)):
        g = jit(f)
        np.testing.assert_array_equal(g(x).detach().numpy(), f(x).detach().numpy())
        optimized = g.explain(x).split("optimized graph")[1].split("eager:")[0]
        assert ("= mul(%0" in optimized) == folds, optimized  # folded: one mul by a constant


def test_arguments_requiring_grad_keep_their_history_through_jit():
    # Regression: the traced symbols did not require grad, so the compiled result had no
    # history and gradients through a jit function (or a GRAPH_MODE cell fed by another
    # layer's output) were silently zero.
    h = mint.randn(5).requires_grad_()
    f = jit(lambda v: mint.relu(v) * 2 + v.exp())
    y = f(h)
    assert y.requires_grad
    y.sum().backward()
    want = (h.detach() > 0).float() * 2 + h.detach().exp()
    np.testing.assert_allclose(h.grad.numpy(), want.numpy(), rtol=1e-6)


def test_graph_mode_cells_differentiate_like_pynative():
    from tandem import nn
    x = mint.randn(16, 8)
    grads = {}
    for mode in (tandem.PYNATIVE_MODE, tandem.GRAPH_MODE):
        tandem.set_context(mode=mode)
        try:
            tandem.manual_seed(0)
            net = nn.SequentialCell(nn.Dense(8, 16), nn.ReLU(), nn.Dense(16, 3))
            g = tandem.grad(lambda a: net(a).sum(), None, net.trainable_params())(x)
            grads[mode] = [t.numpy() for t in g]
        finally:
            tandem.set_context(mode=tandem.PYNATIVE_MODE)
    for a, b in zip(grads[tandem.PYNATIVE_MODE], grads[tandem.GRAPH_MODE]):
        assert np.abs(a).sum() > 0
        np.testing.assert_allclose(a, b, rtol=1e-6)


# --- outputs the optimizer must not turn into aliases -----------------------------------------

def test_an_output_folded_to_its_argument_is_a_copy_when_the_argument_is_written():
    def f(x):
        y = -(-x)  # simplify folds this to x
        x.add_(1)
        return y
    xe, xc = mint.zeros(3), mint.zeros(3)
    want = f(xe)
    got = jit(f)(xc)
    np.testing.assert_array_equal(got.numpy(), want.numpy())  # [0, 0, 0], not the written x
    np.testing.assert_array_equal(xc.numpy(), xe.numpy())


def test_folded_and_merged_outputs_are_distinct_tensors_as_in_eager():
    x = mint.ones(2)
    y = jit(lambda t: t * 1)(x)  # x * 1 -> x
    y.add_(5)
    np.testing.assert_array_equal(x.numpy(), [1, 1])
    a, b = jit(lambda t: (t * 2, t * 2))(mint.ones(2))  # CSE merges the two products
    a.add_(1)
    np.testing.assert_array_equal(a.numpy(), [3, 3])
    np.testing.assert_array_equal(b.numpy(), [2, 2])


def test_outputs_that_alias_in_eager_still_alias():
    x = mint.ones(2)
    assert jit(lambda t: t)(x).data_ptr() == x.data_ptr()
    p, q = jit(lambda t: (t, t))(x)
    assert p.data_ptr() == q.data_ptr() == x.data_ptr()


def test_tensors_inside_list_tuple_and_dict_arguments_are_graph_inputs():
    """A batch passed as [premises, hypotheses] (the D2L SNLI loader's X) or a dict of
    tensors compiles: the container's tensors are arguments of the graph (new values are
    seen on every call, no retrace for the same structure), the structure and any Python
    values in it are static (another structure compiles another graph)."""
    calls = []

    @tandem.jit
    def f(xs, y, opts=None):
        calls.append(1)
        a, b = xs
        return a * b + y, {"s": (a + b).sum(), "opts": opts}

    x1, x2, y = mint.ones(3), mint.full((3,), 2.0), mint.arange(3).float()
    out, extra = f([x1, x2], y)
    np.testing.assert_allclose(out.numpy(), [2, 3, 4])
    assert float(extra["s"]) == 9 and extra["opts"] is None
    out, extra = f([mint.full((3,), 2.0), x2], y)  # same structure: compiled graph, new values
    np.testing.assert_allclose(out.numpy(), [4, 5, 6])
    assert float(extra["s"]) == 12 and len(calls) == 1
    f((x1, x2), y)  # a tuple is another structure
    out, extra = f([x1, x2], y, opts=[1, 2])  # a list of numbers: static
    assert extra["opts"] == [1, 2] and len(calls) == 3
    f([x1, x2], y, opts=[1, 2])
    assert len(calls) == 3

    @tandem.jit
    def g(batch):
        return batch["a"] + batch["b"][0] * batch["b"][1]

    np.testing.assert_allclose(g({"a": x1, "b": [x2, 3]}).numpy(), [7, 7, 7])
    np.testing.assert_allclose(g({"a": x2, "b": [x2, 3]}).numpy(), [8, 8, 8])
    np.testing.assert_allclose(g({"a": x1, "b": [x2, 4]}).numpy(), [9, 9, 9])
    with pytest.raises(TypeError, match="not hashable"):
        g({"a": x1, "b": [x2, {1, 2}]})


def test_mindspore_jit_options_mutable_parameter_tuple_and_numpy_arguments():
    """What MindSpore's static-graph tutorials write: jit's capture_mode / jit_level /
    backend options, mutable() scalars (one graph for every value), ParameterTuple, and
    numpy arrays as arguments (constants of the graph, keyed by value)."""
    calls = []

    @tandem.jit(capture_mode="bytecode", jit_level="O1", backend="ms_backend")
    def add(x, y):
        calls.append(1)
        return x + y

    assert int(add(tandem.mutable(1), tandem.mutable(2))) == 3
    assert int(add(tandem.mutable(5), tandem.mutable(2))) == 7 and len(calls) == 1
    assert float(tandem.mutable(1.5)) == 1.5 and tandem.mutable(True).dtype == tandem.bool_
    pair = tandem.mutable((tandem.tensor([1]), 2))
    assert isinstance(pair, tuple) and int(pair[1]) == 2
    with pytest.raises(ValueError, match="capture_mode"):
        tandem.jit(capture_mode="source")
    with pytest.raises(ValueError, match="backend"):
        tandem.jit(backend="gpu")
    with pytest.raises(TypeError, match="dynamic_len"):
        tandem.mutable(1, dynamic_len=True)

    net = tandem.nn.Dense(2, 3)
    params = tandem.ParameterTuple(net.trainable_params())
    assert len(params) == 2 and isinstance(params, tuple)
    moments = params.clone("m", init="zeros")
    assert [p.name for p in moments] == [f"m.{p.name}" for p in params]
    assert all(float(abs(m).sum()) == 0 for m in moments)
    with pytest.raises(TypeError, match="not a Parameter"):
        tandem.ParameterTuple([tandem.tensor([1.0])])

    seen = []

    @tandem.jit
    def from_numpy(a):
        seen.append(1)
        return tandem.tensor(a, dtype=tandem.float32) * 2

    np.testing.assert_allclose(from_numpy(np.array([0, 1, 2])).numpy(), [0, 2, 4])
    from_numpy(np.array([0, 1, 2]))
    np.testing.assert_allclose(from_numpy(np.array([5, 1, 2])).numpy(), [10, 2, 4])
    assert len(seen) == 2  # one graph per array value


def test_attributes_set_to_computed_tensors_get_their_values_every_call():
    """MindSpore's static-graph tutorial sets self.attr = x + 1 inside a compiled construct
    and prints net.attr afterwards: the attribute used to hold the trace's symbolic tensor
    (which raised when read); it now receives the value of every call."""
    class Net(tandem.nn.Cell):
        def __init__(self):
            super().__init__()
            self.attr = 1
            self.kept = tandem.tensor([9])

        @tandem.jit
        def construct(self, x):
            self.attr = x + 1
            return self.attr * 2

    net = Net()
    assert net(tandem.tensor([1, 2, 3])).tolist() == [4, 6, 8]
    assert net.attr.tolist() == [2, 3, 4] and net.kept.tolist() == [9]
    assert net(tandem.tensor([5, 6, 7])).tolist() == [12, 14, 16]
    assert net.attr.tolist() == [6, 7, 8]


def test_embedding_in_a_compiled_training_step():
    """Token embeddings (D2L's seq2seq and Transformer) compile: the index check runs in the
    gather kernel, so a traced step never reads the symbolic indices, and a bad index raises
    IndexError naming embedding in both modes."""
    def make():
        tandem.manual_seed(0)
        emb, head = mint.nn.Embedding(12, 4), mint.nn.Linear(4, 12)
        opt = mint.optim.SGD(list(emb.parameters()) + list(head.parameters()), lr=0.5)

        def step(tokens, y):
            opt.zero_grad()
            loss = mint.nn.functional.cross_entropy(head(emb(tokens)).reshape(-1, 12), y)
            loss.backward()
            opt.step()
            return loss
        return emb, step
    tokens = mint.tensor([[1, 2, 3], [3, 11, 0]])
    y = mint.tensor([2, 3, 4, 11, 0, 1])
    (e_emb, e_step), (g_emb, g_step) = make(), make()
    g_step = tandem.jit(g_step)
    for _ in range(3):
        np.testing.assert_allclose(float(g_step(tokens, y)), float(e_step(tokens, y)), rtol=1e-5)
    np.testing.assert_allclose(g_emb.weight.detach().numpy(), e_emb.weight.detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    for bad in ([[1, 12, 0], [0, 0, 0]], [[-1, 2, 0], [0, 0, 0]]):
        for step in (e_step, g_step):
            with pytest.raises(IndexError, match="embedding: index"):
                step(mint.tensor(bad), y)
