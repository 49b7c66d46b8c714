"""Run under mpirun by tests/python/test_distributed.py: DistributedDataParallel on N ranks
with a per-rank batch of B equals one process training on the global batch of N*B. Each
rank starts from different weights (DDP must broadcast rank 0's) and trains an MLP for a few
SGD steps; every rank also trains the single-process reference on the whole batch from rank
0's weights and compares. Prints 'OK <rank> <world> <max abs diff>'."""
import numpy as np

import tandem
from tandem import mint
import tandem.mint.distributed as dist

B, IN, HID, OUT, STEPS = 3, 5, 7, 2, 4


def mlp(seed):
    net = mint.nn.Sequential(mint.nn.Linear(IN, HID), mint.nn.Tanh(), mint.nn.Linear(HID, OUT))
    rng = np.random.default_rng(seed)
    net.load_state_dict({k: tandem.tensor(rng.standard_normal(v.shape).astype(np.float32))
                         for k, v in net.state_dict().items()})
    return net


def step(net, opt, x, y):
    opt.zero_grad()
    loss = mint.nn.functional.mse_loss(net(tandem.tensor(x)), tandem.tensor(y))
    loss.backward()
    opt.step()


def main():
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    data = np.random.default_rng(7)
    xs = data.standard_normal((STEPS, world * B, IN)).astype(np.float32)
    ys = data.standard_normal((STEPS, world * B, OUT)).astype(np.float32)

    ddp = mint.nn.parallel.DistributedDataParallel(mlp(seed=rank))
    ref = mlp(seed=0)
    for a, b in zip(ddp.module.state_dict().values(), ref.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())  # rank 0's weights everywhere
    opt = mint.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = mint.optim.SGD(ref.parameters(), lr=0.1)
    for s in range(STEPS):
        mine = slice(rank * B, (rank + 1) * B)
        step(ddp, opt, xs[s, mine], ys[s, mine])
        step(ref, ref_opt, xs[s], ys[s])
    diff = 0.0
    for a, b in zip(ddp.module.state_dict().values(), ref.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
        diff = max(diff, float(np.abs(a.numpy() - b.numpy()).max()))
    moved = max(float(np.abs(a.numpy() - b.numpy()).max()) for a, b in
                zip(ref.state_dict().values(), mlp(seed=0).state_dict().values()))
    assert moved > 1e-3, "training did not change the weights"
    for as_view in (False, True):
        check_buckets_and_no_sync(rank, world, xs, ys, as_view)
    check_unused_parameter_raises()
    check_compiled_ddp(rank, world, xs, ys)
    check_compiled_lenet(rank, world)
    check_traced_in_place_collectives(rank, world)
    dist.destroy_process_group()
    print(f"OK {rank} {world} {diff:.2e}", flush=True)


def check_buckets_and_no_sync(rank, world, xs, ys, as_view):
    """Tiny buckets (one or two parameters each, reduced while backward still runs) and
    gradient accumulation: two micro-batches under no_sync, then one synchronised backward,
    equal one process accumulating all of them."""
    ddp = mint.nn.parallel.DistributedDataParallel(mlp(seed=rank + 10), bucket_cap_mb=1e-5,
                                                   gradient_as_bucket_view=as_view)
    assert len(ddp.reducer.buckets) >= 3, len(ddp.reducer.buckets)
    ref = mlp(seed=10)
    opt = mint.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = mint.optim.SGD(ref.parameters(), lr=0.1)
    mine = slice(rank * B, (rank + 1) * B)
    for s in range(3):
        opt.zero_grad(set_to_none=s != 1)  # step 1 zeroes in place (into the bucket views)
        ref_opt.zero_grad()
        for micro in range(3):
            x, y = xs[(s + micro) % STEPS], ys[(s + micro) % STEPS]
            loss = mint.nn.functional.mse_loss(ddp(tandem.tensor(x[mine])),
                                               tandem.tensor(y[mine]))
            if micro < 2:
                with ddp.no_sync():
                    loss.backward()
            else:
                loss.backward()
            mint.nn.functional.mse_loss(ref(tandem.tensor(x)), tandem.tensor(y)).backward()
        assert ddp.reducer.last_reductions == len(ddp.reducer.buckets)
        if as_view:
            p0 = next(iter(ddp.parameters()))
            b0 = [b for b in ddp.reducer.buckets if any(q is p0 for q in b.params)][0]
            assert b0.buffer.data_ptr() <= p0.grad.data_ptr() < b0.buffer.data_ptr() + \
                b0.buffer.numel() * 4
        opt.step()
        ref_opt.step()
    for a, b in zip(ddp.module.state_dict().values(), ref.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def check_unused_parameter_raises():
    """A parameter without a gradient raises at the end of backward (same on every rank here,
    so every rank raises and the job goes on)."""
    net = mint.nn.ModuleDict({"used": mint.nn.Linear(IN, OUT), "unused": mint.nn.Linear(IN, OUT)})
    ddp = mint.nn.parallel.DistributedDataParallel(net)
    out = ddp.module["used"](tandem.tensor(np.ones((2, IN), np.float32))).sum()
    try:
        out.backward()
        raise AssertionError("no error for an unused parameter")
    except RuntimeError as e:
        assert "produced no gradient for 2 parameter(s)" in str(e), e


def check_compiled_ddp(rank, world, xs, ys):
    """A @jit train step (forward, backward, optimizer) of a DDP model with several buckets
    equals the eager DDP step and one process on the global batch: the compiled graph
    contains one all_reduce per bucket and runs it on every call."""
    def make_step(net, opt):
        def train_step(x, y):
            opt.zero_grad()
            loss = mint.nn.functional.mse_loss(net(x), y)
            loss.backward()
            opt.step()
            return loss
        return train_step

    nets = [mint.nn.parallel.DistributedDataParallel(mlp(seed=rank + 20), bucket_cap_mb=1e-5)
            for _ in range(2)]
    assert len(nets[0].reducer.buckets) >= 2, len(nets[0].reducer.buckets)
    ref = mlp(seed=20)
    opts = [mint.optim.SGD(n.parameters(), lr=0.1, momentum=0.9) for n in nets]
    ref_opt = mint.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    eager, compiled = make_step(nets[0], opts[0]), tandem.jit(make_step(nets[1], opts[1]))
    reference = make_step(ref, ref_opt)
    mine = slice(rank * B, (rank + 1) * B)
    for s in range(STEPS):
        x, y = tandem.tensor(xs[s, mine]), tandem.tensor(ys[s, mine])
        le, lc = eager(x, y), compiled(x, y)
        np.testing.assert_allclose(float(lc), float(le), rtol=1e-5)
        reference(tandem.tensor(xs[s]), tandem.tensor(ys[s]))
    report = compiled.explain(x, y)
    optimized = report[report.index("optimized graph"):].splitlines()
    buckets = len(nets[1].reducer.buckets)
    starts = [i for i, line in enumerate(optimized) if "= all_reduce_start(" in line]
    waits = [i for i, line in enumerate(optimized) if "= all_reduce_wait(" in line]
    matmuls = [i for i, line in enumerate(optimized) if "= matmul(" in line]
    assert len(starts) == len(waits) == buckets, report
    # the first bucket is reduced while backward still computes the others' gradients, and
    # waited for only after the last of them
    assert starts[0] < matmuls[-1] < waits[0], report
    for a, b, c in zip(nets[1].module.state_dict().values(), nets[0].module.state_dict().values(),
                       ref.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-5, atol=1e-6)


def lenet(seed):
    nn = mint.nn
    net = nn.Sequential(nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
                        nn.AvgPool2d(kernel_size=2, stride=2), nn.Conv2d(6, 16, kernel_size=5),
                        nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
                        nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(), nn.Linear(120, 84),
                        nn.Sigmoid(), nn.Linear(84, 10))
    rng = np.random.default_rng(seed)
    net.load_state_dict({k: tandem.tensor(0.2 * rng.standard_normal(v.shape).astype(np.float32))
                         for k, v in net.state_dict().items()})
    return net


def check_compiled_lenet(rank, world):
    """The book's LeNet, trained by a compiled DDP step on a per-rank batch, equals one
    process training eagerly on the global batch (cross-entropy averages over the batch, so
    the mean of the ranks' gradients is the global batch's gradient)."""
    data = np.random.default_rng(11)
    steps, b = 3, 2
    xs = data.standard_normal((steps, world * b, 1, 28, 28)).astype(np.float32)
    ys = data.integers(0, 10, (steps, world * b))
    ddp = mint.nn.parallel.DistributedDataParallel(lenet(seed=rank + 30))
    ref = lenet(seed=30)
    opt = mint.optim.SGD(ddp.parameters(), lr=0.5)
    ref_opt = mint.optim.SGD(ref.parameters(), lr=0.5)
    loss_fn = mint.nn.CrossEntropyLoss()

    @tandem.jit
    def train_step(x, y):
        opt.zero_grad()
        loss = loss_fn(ddp(x), y)
        loss.backward()
        opt.step()
        return loss

    mine = slice(rank * b, (rank + 1) * b)
    for s in range(steps):
        train_step(tandem.tensor(xs[s, mine]), tandem.tensor(ys[s, mine]))
        ref_opt.zero_grad()
        loss_fn(ref(tandem.tensor(xs[s])), tandem.tensor(ys[s])).backward()
        ref_opt.step()
    for a, c in zip(ddp.module.state_dict().values(), ref.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-4, atol=1e-5)


def check_traced_in_place_collectives(rank, world):
    """mint.distributed's in-place collectives inside @jit write their tensors as eagerly,
    on every call (not once at trace time); point-to-point calls raise there."""
    @tandem.jit
    def collectives(t):
        total = t.clone()
        dist.all_reduce(total)
        biggest = t.clone()
        work = dist.all_reduce(biggest, op=dist.ReduceOp.MAX, async_op=True)
        work.wait()
        assert work.is_completed()
        root = t.clone()
        dist.broadcast(root, src=world - 1)
        parts = [mint.zeros_like(t) for _ in range(world)]
        dist.all_gather(parts, t)
        block = mint.zeros(2)
        dist.reduce_scatter(block, [t[:1].repeat(2) for _ in range(world)])
        dist.barrier()
        return total, biggest, root, mint.stack(parts), block

    for call in range(2):  # the second call runs the compiled graph
        base = np.arange(3, dtype=np.float32) + 10 * rank + call
        out = [o.numpy() for o in collectives(tandem.tensor(base))]
        every = np.stack([np.arange(3, dtype=np.float32) + 10 * r + call for r in range(world)])
        np.testing.assert_allclose(out[0], every.sum(0))
        np.testing.assert_allclose(out[1], every.max(0))
        np.testing.assert_allclose(out[2], every[world - 1])
        np.testing.assert_allclose(out[3], every)
        np.testing.assert_allclose(out[4], np.full(2, every[:, 0].sum()))

    @tandem.jit
    def sends(t):
        dist.send(t, dst=(rank + 1) % world)
        return t

    try:
        sends(tandem.tensor(np.ones(2, np.float32)))
        raise AssertionError("no error for send inside jit")
    except RuntimeError as e:
        assert "point-to-point" in str(e), e


if __name__ == "__main__":
    main()
